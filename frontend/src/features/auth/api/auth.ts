import { supabase } from '../../../lib/supabase';
import { likeLiteral, type UsernameStatus } from '../../../lib/validation';
import type { Database } from '../../../types/database';

// The account pages' door to the server (sign-in, sign-up and sign-out are the auth
// store's actions, lib/auth/store).

type Tables = Database['public']['Tables'];
export type University = Omit<Pick<Tables['universities']['Row'], 'code' | 'name' | 'category'>, 'category'> & { category: 'Public' | 'Private' | 'Other' };
export type ProfileArgs = Database['public']['Functions']['create_user_profile']['Args'];

// The fixed university list, in its order.
export async function fetchUniversities(): Promise<University[]> {
  const { data } = await supabase().from('universities').select('code, name, category').order('position');
  return (data as University[] | null) ?? [];
}

// One availability check: the spec's RPC, with its fallback lookup on error.
export async function checkUsername(u: string): Promise<UsernameStatus> {
  const sb = supabase();
  const { data, error } = await sb.rpc('is_username_available', { p_username: u });
  if (!error) return data ? 'available' : 'taken';
  const fb = await sb.from('user_profiles').select('id').ilike('username', likeLiteral(u)).limit(1);
  return fb.error ? 'unknown' : fb.data && fb.data.length > 0 ? 'taken' : 'available';
}

// The signed-in account's own profile (create_user_profile as itself); throws the server's error.
export async function createProfile(args: ProfileArgs): Promise<void> {
  const { error } = await supabase().rpc('create_user_profile', args);
  if (error) throw error;
}

// Mails a reset link; false when the server refused.
export async function sendPasswordReset(email: string): Promise<boolean> {
  const { error } = await supabase().auth.resetPasswordForEmail(email.trim(), { redirectTo: `${window.location.origin}/reset-password` });
  return !error;
}

// Sets a new password for the session of a reset link; false when the server refused.
export async function updatePassword(password: string): Promise<boolean> {
  const { error } = await supabase().auth.updateUser({ password });
  return !error;
}
