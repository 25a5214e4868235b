// The authenticator-app (TOTP) factor through supabase-js's auth.mfa, and what the database
// says the caller's role requires (my_mfa_status, sql/app/015).
import type { AuthError, Factor } from '@supabase/supabase-js';
import { supabase } from '../../../lib/supabase';

export type MfaStatus = { required: boolean; enrolled: boolean; satisfied: boolean };

export const FACTOR_NAME = 'Aplicație de autentificare';

export async function mfaStatus(): Promise<MfaStatus> {
  const { data, error } = await supabase().rpc('my_mfa_status');
  if (error) throw new Error('Starea autentificării în doi pași nu a putut fi citită.');
  return data as MfaStatus;
}

/** The user's verified authenticator app, if any. */
export async function verifiedTotp(): Promise<Factor | null> {
  const { data, error } = await supabase().auth.mfa.listFactors();
  if (error) throw new Error(mfaMessage(error));
  return data.totp[0] ?? null;
}

export async function currentAAL(): Promise<string | null> {
  const { data } = await supabase().auth.mfa.getAuthenticatorAssuranceLevel();
  return data?.currentLevel ?? null;
}

export type Enrolment = { factorId: string; qrCode: string; secret: string };

/** Starts enrolling an authenticator app; an abandoned earlier attempt is dropped first. */
export async function startEnrolment(): Promise<Enrolment> {
  const sb = supabase();
  const { data: list } = await sb.auth.mfa.listFactors();
  for (const f of list?.all ?? []) {
    if (f.status === 'unverified') await sb.auth.mfa.unenroll({ factorId: f.id });
  }
  const { data, error } = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: FACTOR_NAME, issuer: 'Casus' });
  if (error) throw new Error(mfaMessage(error));
  return { factorId: data.id, qrCode: data.totp.qr_code, secret: data.totp.secret };
}

/** Checks a code from the app: the session becomes aal2 (and an enrolment completes). */
export async function confirmCode(factorId: string, code: string): Promise<void> {
  const { error } = await supabase().auth.mfa.challengeAndVerify({ factorId, code: code.replace(/\s+/g, '') });
  if (error) throw new Error(mfaMessage(error));
}

export async function removeFactor(factorId: string): Promise<void> {
  const sb = supabase();
  const { error } = await sb.auth.mfa.unenroll({ factorId });
  if (error) throw new Error(mfaMessage(error));
  // The session falls back to aal1 on the server; the next token says so.
  await sb.auth.refreshSession();
}

export function mfaMessage(error: AuthError | Error): string {
  const code = 'code' in error ? error.code : undefined;
  switch (code) {
    case 'mfa_verification_failed':
      return 'Cod incorect. Verifică aplicația de autentificare și încearcă din nou.';
    case 'mfa_challenge_expired':
      return 'Codul a expirat. Încearcă din nou.';
    case 'insufficient_aal':
      return 'Confirmă mai întâi cu un cod din aplicația de autentificare.';
    case 'over_request_rate_limit':
      return 'Prea multe încercări. Așteaptă câteva minute.';
  }
  return 'Autentificarea în doi pași nu a reușit. Încearcă din nou.';
}
