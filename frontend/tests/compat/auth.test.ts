// Auth contract: the stock supabase-js client against /auth/v1, mails read from a real
// SMTP sink. Run by `make test/contract` (scripts/with-server.sh).
import { createClient, type AuthChangeEvent, type SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const sinkUrl = process.env.SMTP_SINK_URL!;

type Mail = { to: string; subject: string; text: string; link: string };

async function mailTo(address: string, count = 1): Promise<Mail> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${sinkUrl}/messages?to=${encodeURIComponent(address)}`);
    const mails = (await res.json()) as Mail[];
    if (mails.length >= count) return mails[count - 1];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail ${count} for ${address}`);
}

// follow opens a mailed link as the browser would and returns where it redirects.
async function follow(link: string, cookie = ''): Promise<URL> {
  const res = await fetch(link, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}

// landOn lets supabase-js find the session in the page URL it was redirected to, as it
// does in the browser (detectSessionInUrl), and records the events it emits. The
// minimal window/document exist only while the client initialises.
async function landOn(location: URL): Promise<{ sb: SupabaseClient; events: AuthChangeEvent[] }> {
  const g = globalThis as Record<string, unknown>;
  g.window = { location: new URL(location), history: { state: null, replaceState() {} } };
  g.document = {};
  try {
    const sb = createClient(url, anonKey, { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: true, storageKey: `landing-${n++}` } });
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((e) => {
      events.push(e);
    });
    await sb.auth.getSession();
    await new Promise((r) => setTimeout(r, 20)); // events are emitted on the next tick
    return { sb, events };
  } finally {
    delete g.window;
    delete g.document;
  }
}

function client(flowType: 'implicit' | 'pkce' = 'implicit', fetchImpl: typeof fetch = fetch): SupabaseClient {
  return createClient(url, anonKey, {
    global: { fetch: fetchImpl },
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType },
  });
}

// browserCookies keeps the cookie a response sets, as the browser does for supabase-js's
// same-origin requests: the server binds a PKCE recovery to the browser that asked for it.
function browserCookies() {
  let cookie = '';
  const jarFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const set = res.headers.get('set-cookie');
    if (set) cookie = set.split(';')[0];
    return res;
  };
  return { fetch: jarFetch, cookie: () => cookie };
}

// amrMethod is the method of an amr entry (supabase-js types allow RFC 8176's bare strings).
const amrMethod = (m: string | { method: string }) => (typeof m === 'string' ? m : m.method);

const admin = createClient(url, process.env.SERVICE_ROLE_KEY!, { auth: { persistSession: false, autoRefreshToken: false } });
let n = 0;
const address = (p: string) => `${p}-${Date.now()}-${n++}@example.ro`;

describe('auth with supabase-js', () => {
  test('sign-up → confirmation mail → link → sign-in → getUser → refresh → new password → sign-out → sign-in', async () => {
    const sb = client();
    const email = address('student');
    const meta = { name: 'Ana Pop', username: `ana_${Date.now() % 100000}`, university_code: 'UB', university_category: 'Public', university_name: 'Universitatea din București' };
    const { data, error } = await sb.auth.signUp({ email, password: 'parola1', options: { data: meta, emailRedirectTo: `${url}/login` } });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.user?.user_metadata).toMatchObject(meta);
    expect(data.session).toBeNull();

    const early = await sb.auth.signInWithPassword({ email, password: 'parola1' });
    expect(early.error?.message).toBe('Email not confirmed');

    const mail = await mailTo(email);
    expect(mail.subject).toContain('Confirmă');
    const loc = await follow(mail.link);
    expect(loc.origin + loc.pathname).toBe(`${url}/login`);
    const landed = await landOn(loc);
    expect(landed.events).toContain('SIGNED_IN');
    const { data: s } = await landed.sb.auth.getSession();
    expect(s.session?.user.email).toBe(email);
    expect(s.session?.user.email_confirmed_at).toBeTruthy();

    const wrong = await sb.auth.signInWithPassword({ email, password: 'gresit1' });
    expect(wrong.error?.message).toBe('Invalid login credentials');
    expect(wrong.error?.status).toBe(400);

    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((e) => {
      events.push(e);
    });
    const signed = await sb.auth.signInWithPassword({ email, password: 'parola1' });
    expect(signed.error).toBeNull();
    const { data: u } = await sb.auth.getUser();
    expect(u.user?.id).toBe(data.user?.id);
    expect(u.user?.user_metadata.username).toBe(meta.username);

    // amr (read by supabase-js from the access token): the password sign-in, kept as it
    // was (same method, same time) by a refreshed token.
    const aal = (await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data!;
    expect(aal.currentLevel).toBe('aal1');
    expect(aal.currentAuthenticationMethods.map(amrMethod)).toEqual(['password']);

    const before = signed.data.session!.refresh_token;
    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session!.refresh_token).not.toBe(before);
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data!.currentAuthenticationMethods).toEqual(aal.currentAuthenticationMethods);

    const upd = await sb.auth.updateUser({ password: 'parola-noua' });
    expect(upd.error).toBeNull();
    const short = await sb.auth.updateUser({ password: '123' });
    expect(short.error?.message).toBe('Password should be at least 6 characters.');

    expect((await sb.auth.signOut()).error).toBeNull();
    expect(events).toEqual(expect.arrayContaining(['SIGNED_IN', 'TOKEN_REFRESHED', 'USER_UPDATED', 'SIGNED_OUT']));
    expect((await sb.auth.getUser()).data.user).toBeNull();
    expect((await sb.auth.signInWithPassword({ email, password: 'parola1' })).error?.message).toBe('Invalid login credentials');
    const again = await sb.auth.signInWithPassword({ email, password: 'parola-noua' });
    expect(again.error).toBeNull();
  });

  test('a second sign-up with a taken address reveals nothing', async () => {
    const email = address('taken');
    const created = await admin.auth.admin.createUser({ email, password: 'parola1', email_confirm: true });
    const { data, error } = await client().auth.signUp({ email, password: 'alta-parola' });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    // GoTrue's answer: a new user's fields with an invented id and no identities (how
    // Supabase tells an app the address is taken; the study app keeps its own message).
    expect(data.user?.id).not.toBe(created.data.user?.id);
    expect(data.user?.email_confirmed_at).toBeNull();
    expect(data.user?.identities).toEqual([]);
    const fresh = await client().auth.signUp({ email: address('new'), password: 'alta-parola' });
    expect(Object.keys(data.user!)).toEqual(Object.keys(fresh.data.user!));
  });

  test('reset password by mail: the link emits PASSWORD_RECOVERY, then a new password', async () => {
    const email = address('reset');
    await admin.auth.admin.createUser({ email, password: 'vechea1', email_confirm: true });
    const { error } = await client().auth.resetPasswordForEmail(email, { redirectTo: `${url}/reset-password` });
    expect(error).toBeNull();
    const mail = await mailTo(email);
    expect(mail.subject).toContain('parola');
    const loc = await follow(mail.link);
    expect(loc.pathname).toBe('/reset-password');
    const { sb, events } = await landOn(loc);
    expect(events).toContain('PASSWORD_RECOVERY');
    expect((await sb.auth.updateUser({ password: 'noua-parola' })).error).toBeNull();
    await sb.auth.signOut();
    expect((await sb.auth.signInWithPassword({ email, password: 'noua-parola' })).error).toBeNull();
    expect((await sb.auth.signInWithPassword({ email, password: 'vechea1' })).error?.message).toBe('Invalid login credentials');
    // The link is single-use: a second visit lands with GoTrue's error in the fragment.
    const reused = new URLSearchParams((await follow(mail.link)).hash.slice(1));
    expect(reused.get('error_code')).toBe('otp_expired');
  });

  test('reset password in the PKCE flow: ?code= exchanged for a PASSWORD_RECOVERY session', async () => {
    const email = address('pkce');
    await admin.auth.admin.createUser({ email, password: 'vechea1', email_confirm: true });
    const browser = browserCookies();
    const sb = client('pkce', browser.fetch);
    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((e) => {
      events.push(e);
    });
    expect((await sb.auth.resetPasswordForEmail(email, { redirectTo: `${url}/reset-password` })).error).toBeNull();
    const loc = await follow((await mailTo(email)).link, browser.cookie());
    const code = loc.searchParams.get('code');
    expect(code).toBeTruthy();
    const { data, error } = await sb.auth.exchangeCodeForSession(code!);
    expect(error).toBeNull();
    expect(data.session?.user.email).toBe(email);
    expect(events).toContain('PASSWORD_RECOVERY');
    // The code exchange reports the flow's method, as GoTrue does.
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data!.currentAuthenticationMethods.map(amrMethod)).toEqual(['recovery']);
    expect((await sb.auth.updateUser({ password: 'parola-pkce' })).error).toBeNull();
    expect((await client().auth.signInWithPassword({ email, password: 'parola-pkce' })).error).toBeNull();
  });

  test('magic link signs in; resend sends a new confirmation', async () => {
    const email = address('magic');
    await admin.auth.admin.createUser({ email, password: 'parola1', email_confirm: true });
    expect((await client().auth.signInWithOtp({ email, options: { shouldCreateUser: false, emailRedirectTo: `${url}/` } })).error).toBeNull();
    const { sb, events } = await landOn(await follow((await mailTo(email)).link));
    expect(events).toContain('SIGNED_IN');
    expect((await sb.auth.getUser()).data.user?.email).toBe(email);
    // A link followed in the implicit flow: GoTrue's "otp".
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data!.currentAuthenticationMethods.map(amrMethod)).toEqual(['otp']);

    const fresh = address('resend');
    expect((await client().auth.signUp({ email: fresh, password: 'parola1' })).error).toBeNull();
    await mailTo(fresh, 1);
    expect((await client().auth.resend({ type: 'signup', email: fresh })).error).toBeNull();
    const second = await mailTo(fresh, 2);
    expect(second.subject).toContain('Confirmă');
  });

  test('GoTrue errors reach the client as they are', async () => {
    const sb = client();
    const weak = await sb.auth.signUp({ email: address('weak'), password: '123' });
    expect(weak.error?.message).toBe('Password should be at least 6 characters.');
    expect(weak.error?.status).toBe(422);
    expect(weak.error && 'code' in weak.error ? weak.error.code : undefined).toBe('weak_password');
    // As GoTrue: a redirect outside the allow-list is not an error, the link lands on
    // SITE_URL instead (auth-admin.test.ts checks the mailed link).
    const redirect = await sb.auth.resetPasswordForEmail('x@example.ro', { redirectTo: 'https://evil.example.com/' });
    expect(redirect.error).toBeNull();
    const stale = await sb.auth.refreshSession({ refresh_token: 'not-a-token' });
    expect(stale.error?.message).toBe('Invalid Refresh Token: Refresh Token Not Found');
  });
});
