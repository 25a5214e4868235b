// MFA with TOTP through the stock supabase-js (auth.mfa.*), as a Supabase app uses it. The
// codes are computed here from the enrolment secret (tests/support/totp.ts).
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { describe, expect, test } from 'vitest';
import { totpCode, wrongTotpCode } from '../../support/totp';

const url = process.env.CASUS_URL!;
const anonKey = process.env.ANON_KEY!;
const serviceKey = process.env.SERVICE_ROLE_KEY!;

const options = { auth: { persistSession: false, autoRefreshToken: false } };
const admin = createClient(url, serviceKey, options);

async function user(tag: string): Promise<{ sb: SupabaseClient; email: string }> {
  const email = `mfa-${tag}-${Date.now()}@example.com`;
  const { error } = await admin.auth.admin.createUser({ email, password: 'a-safe-password', email_confirm: true });
  if (error) throw error;
  const sb = createClient(url, anonKey, options);
  const { error: e2 } = await sb.auth.signInWithPassword({ email, password: 'a-safe-password' });
  if (e2) throw e2;
  return { sb, email };
}

describe('auth.mfa (TOTP)', () => {
  test('enrol, wrong code refused, verify raises AAL, RLS sees aal2, unenrol', async () => {
    const { sb, email } = await user('life');
    await sb.from('mfa_vault').insert({ body: 'x' }); // refused below aal2 (restrictive policy)

    let aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });

    const en = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Telefon' });
    expect(en.error).toBeNull();
    const factor = en.data!;
    expect(factor.type).toBe('totp');
    expect(factor.friendly_name).toBe('Telefon');
    expect(factor.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<svg')).toBe(true);
    expect(factor.totp.uri).toMatch(/^otpauth:\/\/totp\//);
    expect(decodeURIComponent(factor.totp.uri)).toContain(email);
    expect(new URL(factor.totp.uri).searchParams.get('secret')).toBe(factor.totp.secret);

    const listed = await sb.auth.mfa.listFactors();
    expect(listed.error).toBeNull();
    expect(listed.data!.all.map((f) => [f.id, f.status])).toEqual([[factor.id, 'unverified']]);
    expect(listed.data!.totp).toEqual([]); // only verified factors

    const ch = await sb.auth.mfa.challenge({ factorId: factor.id });
    expect(ch.error).toBeNull();
    expect(ch.data!.expires_at).toBeGreaterThan(Date.now() / 1000 + 200);

    const wrong = await sb.auth.mfa.verify({ factorId: factor.id, challengeId: ch.data!.id, code: wrongTotpCode(factor.totp.secret) });
    expect(wrong.error?.code).toBe('mfa_verification_failed');
    expect(wrong.error?.status).toBe(422);
    aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data!.currentLevel).toBe('aal1');
    expect((await sb.from('mfa_vault').select('body')).data).toEqual([]);

    const ok = await sb.auth.mfa.verify({ factorId: factor.id, challengeId: ch.data!.id, code: totpCode(factor.totp.secret) });
    expect(ok.error).toBeNull();
    aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data!.currentLevel).toBe('aal2');
    expect(aal.data!.nextLevel).toBe('aal2');
    expect(aal.data!.currentAuthenticationMethods.map((m) => (typeof m === 'string' ? m : m.method))).toEqual(['totp', 'password']);
    expect((await sb.auth.mfa.listFactors()).data!.totp.map((f) => f.id)).toEqual([factor.id]);

    // The data API runs with the new token: the aal2 policy lets the owner in.
    const ins = await sb.from('mfa_vault').insert({ body: 'secret' }).select('body');
    expect(ins.error).toBeNull();
    expect((await sb.from('mfa_vault').select('body')).data).toEqual([{ body: 'secret' }]);

    // A refresh keeps aal2.
    const ref = await sb.auth.refreshSession();
    expect(ref.error).toBeNull();
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data!.currentLevel).toBe('aal2');

    // A fresh sign-in is aal1 with aal2 next; one call verifies (challengeAndVerify).
    const other = createClient(url, anonKey, options);
    await other.auth.signInWithPassword({ email, password: 'a-safe-password' });
    const next = await other.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(next.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    expect((await other.from('mfa_vault').select('body')).data).toEqual([]);
    const unenrolAal1 = await other.auth.mfa.unenroll({ factorId: factor.id });
    expect(unenrolAal1.error?.code).toBe('insufficient_aal');
    const cv = await other.auth.mfa.challengeAndVerify({ factorId: factor.id, code: totpCode(factor.totp.secret) });
    expect(cv.error).toBeNull();
    expect((await other.auth.mfa.getAuthenticatorAssuranceLevel()).data!.currentLevel).toBe('aal2');
    expect((await other.from('mfa_vault').select('body')).data).toEqual([{ body: 'secret' }]);

    // Unenrol from an aal2 session; after a refresh the session is aal1 with nothing next.
    const un = await other.auth.mfa.unenroll({ factorId: factor.id });
    expect(un.error).toBeNull();
    expect(un.data!.id).toBe(factor.id);
    await other.auth.refreshSession();
    aal = await other.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
    expect((await other.auth.mfa.listFactors()).data!.all).toEqual([]);
  });

  test('errors carry GoTrue codes', async () => {
    const { sb } = await user('err');
    const unknown = await sb.auth.mfa.challenge({ factorId: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.error?.code).toBe('mfa_factor_not_found');
    expect(unknown.error?.status).toBe(404);
    const a = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Unu' });
    expect(a.error).toBeNull();
    const dup = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Unu' });
    expect(dup.error?.code).toBe('mfa_factor_name_conflict');
  });
});
