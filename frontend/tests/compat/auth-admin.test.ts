// Auth parity contract: the stock supabase-js admin API (generateLink, inviteUserByEmail,
// createUser, listUsers, updateUserById), token claims as GoTrue writes them, the
// redirect fallback and the JSON 404. Run by `make test/contract` (scripts/with-server.sh).
import { createClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const sinkUrl = process.env.SMTP_SINK_URL!;

type Mail = { to: string; link: string };

async function mailTo(address: string, count = 1): Promise<Mail> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${sinkUrl}/messages?to=${encodeURIComponent(address)}`);
    const mails = (await res.json()) as Mail[];
    if (mails.length >= count) return mails[count - 1];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail ${count} for ${address}`);
}

const options = { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } };
const admin = createClient(url, process.env.SERVICE_ROLE_KEY!, options);
const client = () => createClient(url, anonKey, options);
let n = 0;
const address = (p: string) => `${p}-${Date.now()}-${n++}@example.ro`;

function claims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
}

describe('auth admin API', () => {
  test('generateLink returns the link and its hashed token, which verifyOtp redeems', async () => {
    const email = address('gen');
    const { data, error } = await admin.auth.admin.generateLink({ type: 'signup', email, password: 'secret-123' });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.properties?.verification_type).toBe('signup');
    expect(data.properties?.action_link).toContain('/auth/v1/verify?');
    expect(new URL(data.properties!.action_link).searchParams.get('token')).toBe(data.properties?.hashed_token);

    const anon = client();
    const v = await anon.auth.verifyOtp({ type: 'signup', token_hash: data.properties!.hashed_token });
    expect(v.error).toBeNull();
    expect(v.data.session?.user.email).toBe(email);

    const rec = await admin.auth.admin.generateLink({ type: 'recovery', email, options: { redirectTo: `${url}/reset-password` } });
    expect(rec.error).toBeNull();
    expect(rec.data.properties?.redirect_to).toBe(`${url}/reset-password`);
    const missing = await admin.auth.admin.generateLink({ type: 'recovery', email: address('ghost') });
    expect(missing.error?.status).toBe(404);
    expect(missing.error?.code).toBe('user_not_found');
  });

  test('generateLink email_change_current and _new: both confirm, then the address moves', async () => {
    const email = address('change');
    const newEmail = address('changed');
    await admin.auth.admin.createUser({ email, password: 'secret-123', email_confirm: true });
    const cur = await admin.auth.admin.generateLink({ type: 'email_change_current', email, newEmail });
    const next = await admin.auth.admin.generateLink({ type: 'email_change_new', email, newEmail });
    expect(cur.error).toBeNull();
    expect(next.error).toBeNull();
    const anon = client();
    const first = await anon.auth.verifyOtp({ type: 'email_change', token_hash: cur.data.properties!.hashed_token });
    expect(first.error).toBeNull();
    expect(first.data.session).toBeNull();
    const second = await anon.auth.verifyOtp({ type: 'email_change', token_hash: next.data.properties!.hashed_token });
    expect(second.error).toBeNull();
    expect(second.data.user?.email).toBe(newEmail);
    const signIn = await client().auth.signInWithPassword({ email: newEmail, password: 'secret-123' });
    expect(signIn.error).toBeNull();
  });

  test('inviteUserByEmail mails an invite link that signs the invitee in', async () => {
    const email = address('invite');
    const { data, error } = await admin.auth.admin.inviteUserByEmail(email, { data: { name: 'Oaspete' } });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.user?.user_metadata.name).toBe('Oaspete');
    const mail = await mailTo(email);
    const res = await fetch(mail.link, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const frag = new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1));
    expect(frag.get('type')).toBe('invite');
    expect(frag.get('access_token')).toBeTruthy();
    const again = await admin.auth.admin.inviteUserByEmail(email);
    expect(again.error?.code).toBe('email_exists');
  });

  test('createUser stores the provider and validates the address; listUsers refuses page 0', async () => {
    const email = address('create');
    const { data, error } = await admin.auth.admin.createUser({ email, password: 'secret-123', email_confirm: true });
    expect(error).toBeNull();
    expect(data.user?.app_metadata).toMatchObject({ provider: 'email', providers: ['email'] });
    const bad = await admin.auth.admin.createUser({ email: 'not-an-address', password: 'secret-123' });
    expect(bad.error?.message).toBe('Unable to validate email address: invalid format');
    const page0 = await admin.auth.admin.listUsers({ page: 0, perPage: 10 });
    expect(page0.error?.status).toBe(400);
    const page1 = await admin.auth.admin.listUsers({ page: 1, perPage: 10 });
    expect(page1.error).toBeNull();
    expect(page1.data.users.length).toBeGreaterThan(0);

    const moved = address('moved');
    const upd = await admin.auth.admin.updateUserById(data.user!.id, { email: moved });
    expect(upd.error).toBeNull();
    expect(upd.data.user?.email).toBe(moved);
    const signIn = await client().auth.signInWithPassword({ email: moved, password: 'secret-123' });
    expect(signIn.error).toBeNull();
  });
});

describe('token claims and routing as GoTrue', () => {
  test('aud is the string "authenticated" and iss is the API address', async () => {
    const email = address('claims');
    await admin.auth.admin.createUser({ email, password: 'secret-123', email_confirm: true });
    const { data, error } = await client().auth.signInWithPassword({ email, password: 'secret-123' });
    expect(error).toBeNull();
    const c = claims(data.session!.access_token);
    expect(c.aud).toBe('authenticated');
    expect(c.iss).toBe(`${url}/auth/v1`);
  });

  test('a redirect outside the allow-list falls back to the site URL', async () => {
    const email = address('redirect');
    const { error } = await client().auth.signUp({ email, password: 'secret-123', options: { emailRedirectTo: 'https://evil.example.com/cb' } });
    expect(error).toBeNull();
    const mail = await mailTo(email);
    expect(new URL(mail.link).searchParams.get('redirect_to')).toBe(url);
  });

  test('an unknown path under /auth/v1 is a JSON 404', async () => {
    const res = await fetch(`${url}/auth/v1/no-such-endpoint`, { headers: { apikey: anonKey } });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toMatchObject({ code: 404, error_code: 'not_found' });
  });
});
