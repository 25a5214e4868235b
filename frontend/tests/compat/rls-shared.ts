// Shared set-up of the domain contract tests (rls*.test.ts, rpc*.test.ts): the stock
// supabase-js client against the running server, with four signed-up students whose roles
// an admin set, and a little content. Every name is unique per run, so the tests share the
// server's database with the other contract tests without stepping on them.
import { totpCode } from '../support/totp';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';

export const url = process.env.CASUS_URL!;
export const anonKey = process.env.ANON_KEY!;
export const serviceKey = process.env.SERVICE_ROLE_KEY!;

const opts = { auth: { persistSession: false, autoRefreshToken: false } };

export const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`.toUpperCase();
let seq = 0;
/** A case code unique to this run: domain prefix + letters/digits. */
export const code = (prefix = 'CIV') => `${prefix}${run}${(++seq).toString(36).toUpperCase()}`;

export function anonClient(): SupabaseClient {
  return createClient(url, anonKey, opts);
}
export const service = createClient(url, serviceKey, opts);

export interface Student {
  sb: SupabaseClient;
  id: string;
  email: string;
  username: string;
}

/** Signs a student up as the app does (auth user, then create_user_profile) and signs in. */
export async function student(tag: string, role: 'user' | 'moderator' | 'admin' = 'user'): Promise<Student> {
  const email = `dom-${tag}-${run}@example.ro`.toLowerCase();
  const username = `${tag}_${run}`.toLowerCase();
  const { data, error } = await service.auth.admin.createUser({ email, password: 'parola-sigura', email_confirm: true });
  if (error) throw error;
  const id = data.user!.id;
  const sb = anonClient();
  const { error: e1 } = await sb.auth.signInWithPassword({ email, password: 'parola-sigura' });
  if (e1) throw e1;
  const { error: e2 } = await sb.rpc('create_user_profile', {
    p_id: id,
    p_email: email,
    p_name: `Student ${tag}`,
    p_username: username,
    p_university_code: 'UB',
    p_university_category: 'Public',
    p_university_name: 'Universitatea din București',
  });
  if (e2) throw e2;
  if (role !== 'user') {
    const { error: e3 } = await service.rpc('update_user_role', { p_user_id: id, p_new_role: role });
    if (e3) throw e3;
  }
  if (role === 'admin') {
    // MFA_REQUIRED_ROLES=admin: an admin's powers need an aal2 session, so the admin
    // enrols an authenticator and confirms a code, as /admin asks.
    const en = await sb.auth.mfa.enroll({ factorType: 'totp' });
    if (en.error) throw en.error;
    const v = await sb.auth.mfa.challengeAndVerify({ factorId: en.data.id, code: totpCode(en.data.totp.secret) });
    if (v.error) throw v.error;
  }
  return { sb, id, email, username };
}

/** Inserts as service_role and returns the new row's id. */
export async function seed(table: string, row: Record<string, unknown>): Promise<string> {
  const { data, error } = await service.from(table).insert(row).select('id').single();
  if (error) throw new Error(`seed ${table}: ${error.message}`);
  return (data as { id: string }).id;
}
