// GoTrue behaviours of issue 28 through the stock supabase-js, as auth-js's own suite checks
// them (GoTrueApi.test.ts, GoTrueClient.test.ts): admin input validation, invited_at,
// generateLink shapes, the MFA and OAuth-client admin APIs, the empty identities of a taken
// sign-up and the errors of features Casus leaves disabled.
import { createClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';
import { totpCode } from '../../support/totp';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const serviceKey = process.env.SERVICE_ROLE_KEY!;
const options = { auth: { persistSession: false, autoRefreshToken: false } };
const admin = createClient(url, serviceKey, options).auth.admin;
const INVALID_EMAIL = 'xx:;x@x.x';
const address = (tag: string) => `gt-${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

describe('admin input and shapes', () => {
  test('an invalid address is refused by createUser, inviteUserByEmail and generateLink', async () => {
    const created = await admin.createUser({ email: INVALID_EMAIL, password: 'password123' });
    expect(created.error?.message).toMatch('Unable to validate email address: invalid format');
    expect(created.data.user).toBeNull();
    const invited = await admin.inviteUserByEmail(INVALID_EMAIL);
    expect(invited.error?.message).toMatch('Unable to validate email address: invalid format');
    const link = await admin.generateLink({ type: 'signup', email: INVALID_EMAIL, password: 'password123' });
    expect(link.error?.message).toMatch('Unable to validate email address: invalid format');
    expect(link.data.properties).toBeNull();
  });

  test('an invited user has invited_at', async () => {
    const { data, error } = await admin.inviteUserByEmail(address('inv'), { data: { status: 'alpha' } });
    expect(error).toBeNull();
    expect(data.user?.invited_at).toBeDefined();
  });

  test('generateLink signup and email_change_current answer GoTrue properties', async () => {
    const email = address('gl');
    const { data, error } = await admin.generateLink({
      type: 'signup', email, password: 'password123', options: { data: { status: 'alpha' }, redirectTo: 'http://localhost:9999/welcome' },
    });
    expect(error).toBeNull();
    expect(data.user?.user_metadata).toEqual({ status: 'alpha' });
    for (const k of ['action_link', 'email_otp', 'hashed_token', 'redirect_to', 'verification_type']) expect(data.properties).toHaveProperty(k);
    expect(data.properties?.action_link).toMatch(/\?token/);
    expect(data.properties?.action_link).toMatch(/type=signup/);
    expect(data.properties?.action_link).toMatch(/redirect_to=/);

    const current = address('cur');
    await admin.createUser({ email: current });
    const newEmail = address('new');
    const ch = await admin.generateLink({ type: 'email_change_current', email: current, newEmail });
    expect(ch.error).toBeNull();
    expect(ch.data.user?.new_email).toBe(newEmail);
    expect(ch.data.properties?.action_link).toMatch(/\?token/);
    expect(ch.data.properties?.action_link).toMatch(/type=email_change/);
  });

  test('a sign-up of a confirmed address answers a user with no identities', async () => {
    const email = address('taken');
    await admin.createUser({ email, password: 'password123', email_confirm: true });
    const { data, error } = await createClient(url, anonKey, options).auth.signUp({ email, password: 'another-password' });
    expect(error).toBeNull();
    expect(data.user?.identities).toEqual([]);
  });
});

describe('auth.admin.mfa', () => {
  test('list and delete a user\'s factors', async () => {
    const email = address('mfa');
    await admin.createUser({ email, password: 'password123', email_confirm: true });
    const sb = createClient(url, anonKey, options);
    const signed = await sb.auth.signInWithPassword({ email, password: 'password123' });
    const uid = signed.data.user!.id;
    const en = await sb.auth.mfa.enroll({ factorType: 'totp' });
    expect(en.error).toBeNull();
    const ch = await sb.auth.mfa.challenge({ factorId: en.data!.id });
    expect((await sb.auth.mfa.verify({ factorId: en.data!.id, challengeId: ch.data!.id, code: totpCode(en.data!.totp.secret) })).error).toBeNull();

    const listed = await admin.mfa.listFactors({ userId: uid });
    expect(listed.error).toBeNull();
    expect(listed.data?.factors.map((f) => f.id)).toEqual([en.data!.id]);
    const deleted = await admin.mfa.deleteFactor({ userId: uid, id: en.data!.id });
    expect(deleted.error).toBeNull();
    expect((deleted.data as unknown as { data: { id: string } }).data.id).toBe(en.data!.id);
    expect((await admin.mfa.listFactors({ userId: uid })).data?.factors).toEqual([]);

    const none = '00000000-0000-4000-8000-000000000000';
    expect((await admin.mfa.listFactors({ userId: none })).error).not.toBeNull();
    expect((await admin.mfa.deleteFactor({ userId: none, id: none })).error).not.toBeNull();
  });
});

describe('auth.admin.oauth', () => {
  const params = () => ({
    client_name: `Client ${Math.random().toString(36).slice(2, 10)}`,
    redirect_uris: ['https://app.example.com/callback', 'http://localhost:3000/callback'],
    grant_types: ['authorization_code' as const, 'refresh_token' as const],
    response_types: ['code' as const],
  });

  test('create, get, update, regenerate the secret, delete', async () => {
    const p = params();
    const created = await admin.oauth.createClient(p);
    expect(created.error).toBeNull();
    const id = created.data!.client_id;
    expect(created.data?.client_secret).toBeDefined();
    expect(created.data?.client_name).toBe(p.client_name);
    expect(created.data?.redirect_uris).toEqual(p.redirect_uris);

    const got = await admin.oauth.getClient(id);
    expect(got.data?.client_id).toBe(id);
    expect((got.data as Record<string, unknown>).client_secret).toBeUndefined();

    const updated = await admin.oauth.updateClient(id, { logo_uri: 'https://example.com/logo.png' });
    expect(updated.data?.logo_uri).toBe('https://example.com/logo.png');
    expect(updated.data?.client_name).toBe(p.client_name);

    const regen = await admin.oauth.regenerateClientSecret(id);
    expect(regen.error).toBeNull();
    expect(regen.data?.client_secret).not.toBe(created.data?.client_secret);

    expect((await admin.oauth.deleteClient(id)).error).toBeNull();
    const gone = await admin.oauth.getClient(id);
    expect(gone.data).toBeNull();
    expect(gone.error).not.toBeNull();
  });

  test('listClients paginates; bad redirect URIs are refused', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await admin.oauth.createClient(params())).data!.client_id);
    const all = await admin.oauth.listClients();
    expect(all.error).toBeNull();
    expect(all.data.clients.map((c) => c.client_id)).toEqual(expect.arrayContaining(ids));
    const page = await admin.oauth.listClients({ page: 1, perPage: 2 });
    expect(page.data.clients).toHaveLength(2);
    expect(page.data).toMatchObject({ nextPage: 2 });
    for (const id of ids) await admin.oauth.deleteClient(id);

    const bad = await admin.oauth.createClient({ client_name: 'Invalid Client', redirect_uris: [] });
    expect(bad.data).toBeNull();
    expect(bad.error?.message).toMatch(/redirect_uris/);
    const http = await admin.oauth.createClient({ client_name: 'x', redirect_uris: ['http://example.com/cb'] });
    expect(http.error?.message).toContain('HTTP scheme only allowed for localhost');
  });
});

describe('features Casus leaves disabled', () => {
  test('GoTrue\'s messages reach the app', async () => {
    const email = address('dis');
    await admin.createUser({ email, password: 'password123', email_confirm: true });
    const sb = createClient(url, anonKey, options);
    await sb.auth.signInWithPassword({ email, password: 'password123' });

    // scripts/with-server.sh turns manual linking on (off, both answer "Manual linking is
    // disabled": gotrue's TestDisabledFeaturesAnswerAsGoTrue); no OAuth provider is enabled.
    const link = await sb.auth.linkIdentity({ provider: 'google', options: { skipBrowserRedirect: true } });
    expect(link.error?.message).toBe('Unsupported provider: provider is not enabled');
    const oauth = await sb.auth.signInWithOAuth({ provider: 'github', options: { skipBrowserRedirect: true } });
    expect(oauth.error).toBeNull(); // only the URL: the browser would get GoTrue's 400 there
    expect((await fetch(oauth.data.url!)).status).toBe(400);
    const idt = await sb.auth.signInWithIdToken({ provider: 'google', token: 'mock-id-token', nonce: 'mock-nonce' });
    expect(idt.error?.message).toContain('not enabled');
    const sso = await sb.auth.signInWithSSO({ providerId: 'valid-provider-id' });
    expect(sso.error?.message).toContain('SAML 2.0 is disabled');
    const web3 = await sb.auth.signInWithWeb3({ chain: 'solana', message: 'test message', signature: new Uint8Array([1, 2, 3]) });
    expect(web3.error?.message).toContain('Web3 provider is disabled');
    const otp = await sb.auth.signInWithOtp({ phone: '+40712345678' });
    expect(otp.error?.message).toBe('Unsupported phone provider');
    const verify = await sb.auth.verifyOtp({ phone: '+40712345678', token: '123456', type: 'sms' });
    expect(verify.error?.message).toBe('Token has expired or is invalid');
    expect(verify.error?.status).toBe(403);
    const badPhone = await sb.auth.verifyOtp({ phone: '+40712345678-invalid', token: '123456', type: 'sms' });
    expect(badPhone.error?.message).toBe('Invalid phone number format (E.164 required)');
  });
});
