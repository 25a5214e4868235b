import { supabase } from '../../../lib/supabase';
import { watchTables } from '../../../lib/realtime';

// The appeal of a blocked AI check (issue 15 §3). The database decides everything: only the
// owner of a blocked submission may ask (request_human_review), only moderators decide.

export type AppealStatus = 'pending' | 'released' | 'confirmed';
export type Appeal = { id: string; submission_id: string; status: AppealStatus; decision_reason: string | null };

const COLUMNS = 'id, submission_id, status, decision_reason';

export async function requestHumanReview(submissionId: string): Promise<Appeal> {
  const { data, error } = await supabase().rpc('request_human_review', { p_submission_id: submissionId });
  if (error) throw error;
  return data as Appeal;
}

export async function loadAppeal(id: string): Promise<Appeal | null> {
  const { data } = await supabase().from('submission_appeals').select(COLUMNS).eq('id', id).maybeSingle();
  return (data as Appeal | null) ?? null;
}

// The student's latest submission to a case, if it is still ungraded (what the case page
// shows when it opens), read once: its text and strictness, the appeal of a blocked AI
// check if one was asked for, and whether its check or grading failed upstream (My Progress
// says "Evaluare eșuată — reîncearcă"; the text comes back to be sent again).
export async function openSubmissionOnCase(
  caseId: string,
  userId: string,
): Promise<{ text: string; level: number; appeal: Appeal | null; failed: boolean } | null> {
  const sb = supabase();
  const { data: last } = await sb
    .from('case_submissions')
    .select('id, status, submission_text, difficulty_rating, ai_failed_at')
    .eq('case_id', caseId)
    .eq('user_id', userId)
    .order('submitted_at', { ascending: false })
    .limit(1);
  const sub = last?.[0];
  if (!sub || sub.status === 'graded') return null;
  const { data } = await sb.from('submission_appeals').select(COLUMNS).eq('submission_id', sub.id).maybeSingle();
  return { text: sub.submission_text, level: sub.difficulty_rating, appeal: (data as Appeal | null) ?? null, failed: sub.status === 'submitted' && !!sub.ai_failed_at };
}

// Follows one appeal live (a channel of lib/realtime, the one owner of channels): onChange
// gets each new state of the row; onLive fires once the subscription is joined, after which
// the row is read again, so a decision taken before the join is not missed. Returns the
// unsubscribe function.
export function watchAppeal(id: string, onChange: (a: Appeal) => void, onLive: () => void): () => void {
  return watchTables(
    `appeal-${id}`,
    [{ table: 'submission_appeals', event: 'UPDATE', filter: `id=eq.${id}` }],
    (row) => onChange(row as unknown as Appeal),
    () => {
      onLive();
      void loadAppeal(id).then((a) => a && onChange(a));
    },
  );
}
