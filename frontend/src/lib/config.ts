// Runtime configuration served by the backend, so one build runs on any deployment.
export type AppConfig = { supabaseUrl: string; supabaseAnonKey: string; aiEnabled: boolean; aiModel?: string };

export async function loadConfig(): Promise<AppConfig> {
  const res = await fetch('/config.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`config.json: ${res.status}`);
  const cfg = (await res.json()) as AppConfig;
  if (!cfg.supabaseAnonKey) throw new Error('supabaseAnonKey is required.');
  return cfg;
}
