import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { AppConfig } from './config';
import type { Database } from '../types/database';

// The only createClient() of the app.
let client: SupabaseClient<Database> | null = null;
let appConfig: AppConfig | null = null;

export function initSupabase(cfg: AppConfig): SupabaseClient<Database> {
  appConfig = cfg;
  client = createClient<Database>(cfg.supabaseUrl || window.location.origin, cfg.supabaseAnonKey, {
    auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true, flowType: 'implicit' },
  });
  return client;
}

export function supabase(): SupabaseClient<Database> {
  if (!client) throw new Error('Supabase client used before initSupabase');
  return client;
}

export function aiEnabled(): boolean {
  return appConfig?.aiEnabled ?? false;
}

// The server names the model in /config.json; this fallback is the server's default
// (config.DefaultAIModel), kept equal by lib/aiModel.test.ts.
export const DEFAULT_AI_MODEL = 'claude-sonnet-5-5';

export function aiModel(): string {
  return appConfig?.aiModel || DEFAULT_AI_MODEL;
}
