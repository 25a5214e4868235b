// Auth contract: the stock supabase-js client against /auth/v1, mails read from a real
// SMTP sink. Run by `make test/contract` (scripts/with-server.sh).
import { createClient, type AuthChangeEvent, type SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const sinkUrl = process.env.SMTP_SINK_URL!;

type Mail = { to: string; subject: string; link: string };

async function mailTo(address: string, count = 1): Promise<Mail> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${sinkUrl}/messages?to=${encodeURIComponent(address)}`);
    const mails = (await res.json()) as Mail[];
    if (mails.length >= count) return mails[count - 1];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail ${count} for ${address}`);
}

// followLink does what the browser does with a mailed link: follow the redirect and hand
// the fragment to supabase-js, which emits the session event.
async function followLink(sb: SupabaseClient, link: string): Promise<URL> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(303);
  const loc = new URL(res.headers.get('location')!);
  const frag = new URLSearchParams(loc.hash.slice(1));
  const { error } = await sb.auth.setSession({ access_token: frag.get('access_token')!, refresh_token: frag.get('refresh_token')! });
  expect(error).toBeNull();
  return loc;
}

function client(): SupabaseClient {
  return createClient(url, anonKey, { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } });
}

describe('auth with supabase-js', () => {
  test('sign-up → confirmation mail → sign-in → refresh → password change → sign-out', async () => {
    const sb = client();
    const email = `student-${Date.now()}@example.ro`;
    const meta = { name: 'Ana Pop', username: `ana_${Date.now() % 100000}`, university_code: 'UB', university_category: 'Public', university_name: 'Universitatea din București' };
    const { data, error } = await sb.auth.signUp({ email, password: 'parola1', options: { data: meta, emailRedirectTo: `${url}/login` } });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
    expect(data.user?.user_metadata.username).toBe(meta.username);
    expect(data.session).toBeNull();

    const early = await sb.auth.signInWithPassword({ email, password: 'parola1' });
    expect(early.error?.message).toBe('Email not confirmed');

    const mail = await mailTo(email);
    expect(mail.subject).toContain('Confirmă');
    const loc = await followLink(client(), mail.link);
    expect(loc.pathname).toBe('/login');

    const wrong = await sb.auth.signInWithPassword({ email, password: 'gresit1' });
    expect(wrong.error?.message).toBe('Invalid login credentials');

    const events: AuthChangeEvent[] = [];
    sb.auth.onAuthStateChange((e) => events.push(e));
    const signed = await sb.auth.signInWithPassword({ email, password: 'parola1' });
    expect(signed.error).toBeNull();
    const { data: u } = await sb.auth.getUser();
    expect(u.user?.id).toBe(data.user?.id);

    const before = signed.data.session!.refresh_token;
    const refreshed = await sb.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session!.refresh_token).not.toBe(before);

    const upd = await sb.auth.updateUser({ password: 'parola-noua' });
    expect(upd.error).toBeNull();
    const short = await sb.auth.updateUser({ password: '123' });
    expect(short.error?.message).toBe('Password should be at least 6 characters.');

    expect((await sb.auth.signOut()).error).toBeNull();
    expect(events).toEqual(expect.arrayContaining(['SIGNED_IN', 'TOKEN_REFRESHED', 'USER_UPDATED', 'SIGNED_OUT']));
    const again = await sb.auth.signInWithPassword({ email, password: 'parola-noua' });
    expect(again.error).toBeNull();
  });

  test('reset password by mail: PASSWORD_RECOVERY then a new password', async () => {
    const admin = createClient(url, process.env.SERVICE_ROLE_KEY!, { auth: { persistSession: false, autoRefreshToken: false } });
    const email = `reset-${Date.now()}@example.ro`;
    await admin.auth.admin.createUser({ email, password: 'vechea1', email_confirm: true });
    const sb = client();
    const { error } = await sb.auth.resetPasswordForEmail(email, { redirectTo: `${url}/reset-password` });
    expect(error).toBeNull();
    const mail = await mailTo(email);
    const res = await fetch(mail.link, { redirect: 'manual' });
    const loc = new URL(res.headers.get('location')!);
    expect(loc.pathname).toBe('/reset-password');
    const frag = new URLSearchParams(loc.hash.slice(1));
    expect(frag.get('type')).toBe('recovery');
    await sb.auth.setSession({ access_token: frag.get('access_token')!, refresh_token: frag.get('refresh_token')! });
    expect((await sb.auth.updateUser({ password: 'noua-parola' })).error).toBeNull();
    await sb.auth.signOut();
    expect((await sb.auth.signInWithPassword({ email, password: 'noua-parola' })).error).toBeNull();
    expect((await sb.auth.signInWithPassword({ email, password: 'vechea1' })).error?.message).toBe('Invalid login credentials');
  });

  test('a redirect outside the allow-list is refused', async () => {
    const { error } = await client().auth.resetPasswordForEmail('x@example.ro', { redirectTo: 'https://evil.example.com/' });
    expect(error?.status).toBe(400);
  });
});
