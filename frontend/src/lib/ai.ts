import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { aiEnabled, aiModel } from './supabase';
import type { AiTask } from '../types/rules';

// The AI client is loaded on first use (a dynamic import), keeping the dashboard's initial
// JavaScript light. Base URL is our server's gateway; the credential is the user's token.
export async function aiClient(token: string) {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  return new Anthropic({ baseURL: `${window.location.origin}/ai`, authToken: token, apiKey: null, dangerouslyAllowBrowser: true });
}

// Whether this server has an AI provider, and its model (both from /config.json).
export { aiEnabled, aiModel };

// The body of a gateway call: the model and the messages only. The gateway owns every other
// setting of a task (max_tokens, temperature: prompts.Tasks in server/internal/aigw) and
// ignores them in the request, so the browser does not send them. The SDK's type asks for
// max_tokens; without it the SDK keeps its default timeout.
export function gatewayBody(messages: MessageParam[]): MessageCreateParamsNonStreaming {
  return { model: aiModel(), messages } as MessageCreateParamsNonStreaming;
}

// The headers of a gateway call: the task (one of the server's, types/rules.ts) and its context.
export function taskHeaders(task: AiTask, context: Record<string, string> = {}): Record<string, string> {
  return { 'X-Casus-Task': task, ...context };
}
