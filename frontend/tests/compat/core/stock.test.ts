// A stock Supabase project (issue 28), fixture/200_stock_project.sql, loaded with psql
// unchanged: PostgREST's in-database configuration on `authenticator`, a second schema
// granted to anon and authenticated only, RLS, an RPC, a table in supabase_realtime.
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const serviceKey = process.env.SERVICE_ROLE_KEY!;

const options = { auth: { persistSession: false, autoRefreshToken: false } };
const sb = createClient(url, anonKey, options);
const admin = createClient(url, serviceKey, options);
const clients: SupabaseClient[] = [];

async function user(tag: string): Promise<{ sb: SupabaseClient; id: string }> {
  const email = `stock-${tag}-${Date.now()}@example.com`;
  const { data, error } = await admin.auth.admin.createUser({ email, password: 'a-safe-password', email_confirm: true });
  if (error) throw error;
  const c = createClient(url, anonKey, options);
  const { error: e2 } = await c.auth.signInWithPassword({ email, password: 'a-safe-password' });
  if (e2) throw e2;
  clients.push(c);
  return { sb: c, id: data.user!.id };
}

afterAll(async () => {
  for (const c of [...clients, admin]) await c.removeAllChannels();
});

describe('a second schema granted to the API roles only', () => {
  test('is served, under its RLS policies', async () => {
    const { data, error } = await sb.schema('personal').from('users').select('username, status').order('username');
    expect(error).toBeNull();
    expect(data).toEqual([
      { username: 'awailas', status: 'ONLINE' },
      { username: 'supabot', status: 'ONLINE' },
    ]);
  });

  test('its functions are callable', async () => {
    const { data, error } = await sb.schema('personal').rpc('get_status', { name_param: 'supabot' });
    expect(error).toBeNull();
    expect(data).toBe('ONLINE');
  });

  test('a signed-in user writes their own rows and no one else’s', async () => {
    const alice = await user('alice');
    const mine = await alice.sb
      .schema('personal')
      .from('users')
      .insert({ username: `alice-${Date.now()}`, status: 'OFFLINE', owner_id: alice.id })
      .select('status')
      .single();
    expect(mine.error).toBeNull();
    expect(mine.data).toEqual({ status: 'OFFLINE' });
    const forged = await alice.sb
      .schema('personal')
      .from('users')
      .insert({ username: `forged-${Date.now()}`, owner_id: crypto.randomUUID() });
    expect(forged.error?.code).toBe('42501');
    // anon has SELECT only: PostgREST answers PostgreSQL's refusal, 401 without a user.
    const anonWrite = await sb.schema('personal').from('users').insert({ username: 'anon-write' });
    expect(anonWrite.status).toBe(401);
    expect(anonWrite.error?.code).toBe('42501');
  });
});

describe('in-database configuration on authenticator', () => {
  test('pgrst.db_aggregates_enabled turns aggregates on', async () => {
    const { data, error } = await sb.from('lib_books').select('pages.sum()').lte('id', 4);
    expect(error).toBeNull();
    expect(data).toEqual([{ sum: 400 }]);
  });

  test('pgrst.db_plan_enabled answers explain()', async () => {
    const { data, error } = await sb.schema('personal').from('users').select('username').explain({ format: 'json' });
    expect(error).toBeNull();
    expect(JSON.stringify(data)).toContain('"Plan"');
  });

  test('pgrst.db_tx_end = commit-allow-override honours rollback()', async () => {
    const label = `rolled-back-${Date.now()}`;
    const res = await sb.from('lib_counters').insert({ id: 900, label }).select('label').rollback();
    expect(res.error).toBeNull();
    expect(res.data).toEqual([{ label }]);
    const after = await sb.from('lib_counters').select('id').eq('id', 900);
    expect(after.data).toEqual([]);
  });
});

describe('realtime on the second schema', () => {
  test('a change to personal.users reaches a subscriber', async () => {
    const listener = createClient(url, anonKey, options);
    clients.push(listener);
    const got: Array<Record<string, unknown>> = [];
    const ch: RealtimeChannel = listener
      .channel(`stock-${Date.now()}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'personal', table: 'users' }, (p) => got.push(p.new));
    await new Promise<void>((resolve, reject) => {
      ch.subscribe((status, err) => {
        if (status === 'SUBSCRIBED') resolve();
        else if (status !== 'CLOSED') reject(err ?? new Error(status));
      });
    });
    const username = `rt-${Date.now()}`;
    const { error } = await admin.schema('personal').from('users').insert({ username, status: 'ONLINE' });
    expect(error).toBeNull();
    await expect.poll(() => got.map((r) => r.username), { timeout: 15_000 }).toContain(username);
  });
});

describe('services that are not part of Casus', () => {
  test('Storage and Edge Functions get the gateway’s 404 as a client error', async () => {
    const list = await sb.storage.from('avatars').list();
    expect(list.data).toBeNull();
    expect(list.error).toMatchObject({ name: 'StorageApiError', status: 404, message: 'no Route matched with those values' });
    const fn = await sb.functions.invoke('hello', { body: {} });
    expect(fn.data).toBeNull();
    expect(fn.error?.name).toBe('FunctionsHttpError');
    expect((fn.error as { context?: Response }).context?.status).toBe(404);
  });
});
