import { supabase } from './supabase';

// A signed-in user's own feedback, newest first (section 6: fails with
// 'Not authenticated' when nobody is signed in, before any request is made).
export async function listOwnFeedback() {
  const sb = supabase();
  const { data: { session } } = await sb.auth.getSession();
  if (!session) throw new Error('Not authenticated');
  const { data, error } = await sb
    .from('feedback')
    .select('id, user_id, email, body, created_at')
    .eq('user_id', session.user.id)
    .order('created_at', { ascending: false });
  if (error) throw error;
  return data;
}

// Sends feedback: a signed-in user by id, a visitor with an optional e-mail. False when the
// server refused.
export async function sendFeedback(userId: string | null, email: string, body: string): Promise<boolean> {
  const { error } = await supabase().from('feedback').insert({ user_id: userId, email: userId ? null : email.trim() || null, body: body.trim() });
  return !error;
}
