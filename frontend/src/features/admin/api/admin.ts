import { supabase } from '../../../lib/supabase';
import { watchTables } from '../../../lib/realtime';
import type { Database } from '../../../types/database';

// The admin page's door to the server: the user list, the feedback, role changes.

type Tables = Database['public']['Tables'];
export type UserRow = Pick<Tables['user_profiles']['Row'], 'id' | 'email' | 'name' | 'username' | 'university_code' | 'is_admin' | 'role' | 'created_at'>;
export type FeedbackRow = Pick<Tables['feedback']['Row'], 'id' | 'user_id' | 'email' | 'body' | 'created_at'>;
export type Role = Database['public']['Functions']['update_user_role']['Args']['p_new_role'];

export async function fetchUsers(): Promise<UserRow[]> {
  const { data, error } = await supabase()
    .from('user_profiles')
    .select('id, email, name, username, university_code, is_admin, role, created_at')
    .order('created_at', { ascending: true });
  if (error) throw error;
  return data;
}

// One page of feedback, newest first, and the total: the table stays usable however much
// arrives.
export const FEEDBACK_PAGE = 50;
export async function fetchFeedback(page = 0): Promise<{ rows: FeedbackRow[]; total: number }> {
  const from = page * FEEDBACK_PAGE;
  const { data, error, count } = await supabase()
    .from('feedback')
    .select('id, user_id, email, body, created_at', { count: 'exact' })
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .range(from, from + FEEDBACK_PAGE - 1);
  if (error) throw error;
  return { rows: data, total: count ?? data.length };
}

export async function updateUserRole(userId: string, role: Role): Promise<void> {
  const { error } = await supabase().rpc('update_user_role', { p_user_id: userId, p_new_role: role });
  if (error) throw error;
}

// New feedback and sign-ups, live. Returns the unsubscribe function.
export function watchAdminTables(onChange: () => void): () => void {
  return watchTables('admin-live', [{ table: 'feedback' }, { table: 'user_profiles' }], onChange);
}
