// The Supabase core without the study app (CASUS_APP=none): what a new Supabase app meets
// on its first requests. Each later issue's behaviours get their own file beside this one.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const serviceKey = process.env.SERVICE_ROLE_KEY!;

const options = { auth: { persistSession: false, autoRefreshToken: false } };
const admin = createClient(url, serviceKey, options);

async function user(tag: string): Promise<SupabaseClient> {
  const email = `core-${tag}-${Date.now()}@example.com`;
  const { error } = await admin.auth.admin.createUser({ email, password: 'a-safe-password', email_confirm: true });
  if (error) throw error;
  const sb = createClient(url, anonKey, options);
  const { error: e2 } = await sb.auth.signInWithPassword({ email, password: 'a-safe-password' });
  if (e2) throw e2;
  return sb;
}

describe('CASUS_APP=none', () => {
  test('the study schema is absent', async () => {
    const anon = createClient(url, anonKey, options);
    const { error, status } = await anon.from('cases').select('id');
    expect(status).toBe(404);
    expect(error?.code).toBe('PGRST205');
  });

  test('the web app is not mounted', async () => {
    const res = await fetch(`${url}/dashboard`);
    expect(res.status).toBe(404);
  });

  test('a table made with psql is served under its RLS policies', async () => {
    const alice = await user('alice');
    const bob = await user('bob');
    const { data, error } = await alice.from('notes').insert({ body: 'prima notiță' }).select('id, body').single();
    expect(error).toBeNull();
    expect(data?.body).toBe('prima notiță');
    const mine = await alice.from('notes').select('body');
    expect(mine.data).toEqual([{ body: 'prima notiță' }]);
    const theirs = await bob.from('notes').select('body');
    expect(theirs.error).toBeNull();
    expect(theirs.data).toEqual([]);
    const anon = createClient(url, anonKey, options);
    const anonRead = await anon.from('notes').select('body');
    expect(anonRead.data ?? []).toEqual([]);
  });
});
