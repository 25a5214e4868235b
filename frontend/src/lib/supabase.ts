import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { AppConfig } from './config';

// The only createClient() of the app.
let client: SupabaseClient | null = null;
let appConfig: AppConfig | null = null;

export function initSupabase(cfg: AppConfig): SupabaseClient {
  appConfig = cfg;
  client = createClient(cfg.supabaseUrl || window.location.origin, cfg.supabaseAnonKey, {
    auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true, flowType: 'implicit' },
  });
  return client;
}

export function supabase(): SupabaseClient {
  if (!client) throw new Error('Supabase client used before initSupabase');
  return client;
}

export function aiEnabled(): boolean {
  return appConfig?.aiEnabled ?? false;
}
