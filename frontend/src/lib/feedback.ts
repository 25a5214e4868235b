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

// Sends feedback: a signed-in user by id, a visitor with an optional e-mail. Null when
// stored; otherwise the message to show: the server's own when it limits how much
// feedback arrives (429, in Romanian), else the generic one.
export async function sendFeedback(userId: string | null, email: string, body: string): Promise<string | null> {
  const { error, status } = await supabase().from('feedback').insert({ user_id: userId, email: userId ? null : email.trim() || null, body: body.trim() });
  if (!error) return null;
  return status === 429 && error.message ? error.message : 'A apărut o eroare. Te rog încearcă din nou.';
}
