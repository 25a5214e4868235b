// Reauthentication (supabase-js reauthenticate() and updateUser({ password, nonce })) and
// identities (getUserIdentities, unlinkIdentity) against the core alone, as GoTrue has
// them. scripts/with-server.sh turns SECURE_PASSWORD_CHANGE and MANUAL_LINKING_ENABLED on.
import { execFileSync } from 'node:child_process';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const sinkUrl = process.env.SMTP_SINK_URL!;
const options = { auth: { persistSession: false, autoRefreshToken: false } };
const admin = createClient(url, process.env.SERVICE_ROLE_KEY!, options);
let n = 0;

function psql(sql: string): void {
  execFileSync('psql', [process.env.DATABASE_URL!, '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql]);
}

async function signedIn(tag: string): Promise<{ sb: SupabaseClient; email: string }> {
  const email = `${tag}-${Date.now()}-${n++}@example.com`;
  const { error } = await admin.auth.admin.createUser({ email, password: 'parola-veche', email_confirm: true });
  if (error) throw error;
  const sb = createClient(url, anonKey, options);
  const { error: e2 } = await sb.auth.signInWithPassword({ email, password: 'parola-veche' });
  if (e2) throw e2;
  return { sb, email };
}

async function codeFor(address: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${sinkUrl}/messages?to=${encodeURIComponent(address)}`);
    const mails = (await res.json()) as { text: string }[];
    const code = mails.length > 0 ? /\b\d{6}\b/.exec(mails[mails.length - 1].text)?.[0] : undefined;
    if (code) return code;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no code for ${address}`);
}

describe('reauthentication', () => {
  test('a fresh session changes its password without a nonce', async () => {
    const { sb } = await signedIn('reauth-fresh');
    const { error } = await sb.auth.updateUser({ password: 'parola-noua' });
    expect(error).toBeNull();
  });

  test('a session older than a day needs the mailed nonce, once', async () => {
    const { sb, email } = await signedIn('reauth-old');
    const age = () => psql(`update auth.sessions set created_at = now() - interval '25 hours' where user_id = (select id from auth.users where email = '${email}')`);
    age();
    const { error: needed } = await sb.auth.updateUser({ password: 'parola-noua' });
    expect(needed?.code).toBe('reauthentication_needed');
    expect(needed?.status).toBe(400);

    const { error: sendError } = await sb.auth.reauthenticate();
    expect(sendError).toBeNull();
    const nonce = await codeFor(email);
    const { error: again } = await sb.auth.reauthenticate();
    expect(again?.code).toBe('over_email_send_rate_limit');

    const { error: wrong } = await sb.auth.updateUser({ password: 'parola-noua', nonce: nonce === '000000' ? '111111' : '000000' });
    expect(wrong?.code).toBe('reauthentication_not_valid');
    const { error } = await sb.auth.updateUser({ password: 'parola-noua', nonce });
    expect(error).toBeNull();
    const other = createClient(url, anonKey, options);
    const { error: signInError } = await other.auth.signInWithPassword({ email, password: 'parola-noua' });
    expect(signInError).toBeNull();

    age();
    const { error: used } = await sb.auth.updateUser({ password: 'parola-a-treia', nonce });
    expect(used?.code).toBe('reauthentication_not_valid');
  });
});

describe('identities', () => {
  test('getUserIdentities lists the e-mail identity; the last identity cannot be unlinked', async () => {
    const { sb, email } = await signedIn('identities');
    const { data, error } = await sb.auth.getUserIdentities();
    expect(error).toBeNull();
    expect(data?.identities.map((i) => [i.provider, i.identity_data?.email])).toEqual([['email', email]]);
    const { error: unlinkError } = await sb.auth.unlinkIdentity(data!.identities[0]);
    expect(unlinkError?.code).toBe('single_identity_not_deletable');
    expect(unlinkError?.status).toBe(422);
  });

  test('a second identity is unlinked and the providers follow', async () => {
    const { sb, email } = await signedIn('unlink');
    psql(`insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
      select 'gh-' || id, id, jsonb_build_object('sub', 'gh-' || id), 'github', now(), now() from auth.users where email = '${email}'`);
    const { data } = await sb.auth.getUserIdentities();
    const github = data!.identities.find((i) => i.provider === 'github')!;
    expect(github).toBeDefined();
    const { error } = await sb.auth.unlinkIdentity(github);
    expect(error).toBeNull();
    const { data: after } = await sb.auth.getUser();
    expect(after.user?.identities?.map((i) => i.provider)).toEqual(['email']);
    expect(after.user?.app_metadata.providers).toEqual(['email']);
  });
});
