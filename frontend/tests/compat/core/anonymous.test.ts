// Anonymous sign-ins (supabase-js signInAnonymously) against the core alone, and their
// conversion to a permanent user by updateUser({ email, password }) and the mailed link.
// scripts/with-server.sh turns ANONYMOUS_USERS_ENABLED on (GoTrue's default is off, which
// the Go tests cover).
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const sinkUrl = process.env.SMTP_SINK_URL!;
const options = { auth: { persistSession: false, autoRefreshToken: false } };
let n = 0;

type Mail = { to: string; text: string; link: string };

async function mailTo(address: string): Promise<Mail> {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${sinkUrl}/messages?to=${encodeURIComponent(address)}`);
    const mails = (await res.json()) as Mail[];
    if (mails.length > 0) return mails[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail for ${address}`);
}

function claims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
}

describe('anonymous sign-ins', () => {
  test('settings announce them', async () => {
    const res = await fetch(`${url}/auth/v1/settings`, { headers: { apikey: anonKey } });
    const body = (await res.json()) as { external: Record<string, boolean> };
    expect(body.external.anonymous_users).toBe(true);
  });

  test('signInAnonymously gives an authenticated session marked is_anonymous', async () => {
    const sb = createClient(url, anonKey, options);
    const { data, error } = await sb.auth.signInAnonymously({ options: { data: { nume: 'Vizitator' } } });
    expect(error).toBeNull();
    expect(data.user?.is_anonymous).toBe(true);
    expect(data.user?.email).toBe('');
    expect(data.user?.identities).toEqual([]);
    expect(data.user?.user_metadata.nume).toBe('Vizitator');
    const c = claims(data.session!.access_token);
    expect(c.is_anonymous).toBe(true);
    expect(c.role).toBe('authenticated');
    expect((c.amr as { method: string }[])[0].method).toBe('anonymous');
    const { data: got } = await sb.auth.getUser();
    expect(got.user?.id).toBe(data.user?.id);
    expect(got.user?.is_anonymous).toBe(true);
    // A password alone cannot be set on an anonymous user.
    const { error: pwError } = await sb.auth.updateUser({ password: 'o-parola-buna' });
    expect(pwError?.code).toBe('validation_failed');
  });

  test('RLS tells anonymous users apart by the is_anonymous claim', async () => {
    const sb = createClient(url, anonKey, options);
    await sb.auth.signInAnonymously();
    const { error } = await sb.from('guestbook').insert({ body: 'scris de un vizitator' });
    expect(error?.code).toBe('42501');
    const { error: readError } = await sb.from('guestbook').select('id');
    expect(readError).toBeNull();
  });

  test('updateUser({ email, password }) and the mailed link make the same user permanent', async () => {
    const sb = createClient(url, anonKey, options);
    const { data } = await sb.auth.signInAnonymously();
    const id = data.user!.id;
    const email = `anonim-${Date.now()}-${n++}@example.com`;
    const { data: updated, error } = await sb.auth.updateUser({ email, password: 'o-parola-buna' });
    expect(error).toBeNull();
    expect(updated.user?.new_email).toBe(email);
    expect(updated.user?.is_anonymous).toBe(true);

    const mail = await mailTo(email);
    expect(mail.link).toContain('type=email_change');
    const res = await fetch(mail.link, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const fragment = new URLSearchParams(new URL(res.headers.get('location')!).hash.slice(1));
    const access = fragment.get('access_token')!;
    expect(claims(access).is_anonymous).toBe(false);
    expect(claims(access).sub).toBe(id);

    const permanent = createClient(url, anonKey, options);
    const { data: signedIn, error: signInError } = await permanent.auth.signInWithPassword({ email, password: 'o-parola-buna' });
    expect(signInError).toBeNull();
    expect(signedIn.user?.id).toBe(id);
    expect(signedIn.user?.is_anonymous).toBe(false);
    expect(signedIn.user?.identities?.map((i) => i.provider)).toEqual(['email']);
    // Now RLS lets the same user write.
    const { error: insertError } = await permanent.from('guestbook').insert({ body: 'acum cu cont' });
    expect(insertError).toBeNull();
  });

  test('an address already taken is refused', async () => {
    const owner: SupabaseClient = createClient(url, anonKey, options);
    const { data } = await owner.auth.signInAnonymously();
    expect(data.user).not.toBeNull();
    const admin = createClient(url, process.env.SERVICE_ROLE_KEY!, options);
    const email = `ocupat-${Date.now()}-${n++}@example.com`;
    await admin.auth.admin.createUser({ email, password: 'o-parola-buna', email_confirm: true });
    const { error } = await owner.auth.updateUser({ email });
    expect(error?.code).toBe('email_exists');
  });
});
