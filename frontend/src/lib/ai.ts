import { aiEnabled, aiModel } from './supabase';

// The AI client is loaded on first use (a dynamic import), keeping the dashboard's initial
// JavaScript light. Base URL is our server's gateway; the credential is the user's token.
export async function aiClient(token: string) {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  return new Anthropic({ baseURL: `${window.location.origin}/ai`, authToken: token, apiKey: null, dangerouslyAllowBrowser: true });
}

// Whether this server has an AI provider, and its model (both from /config.json).
export { aiEnabled, aiModel };
