import { supabase } from '../../lib/supabase';

// The student's latest submission on a case when its AI check or grading failed upstream
// (My Progress labels it "Evaluare eșuată — reîncearcă"): its text and strictness come
// back into the editor, so trying again loses nothing.
export async function failedSubmissionOnCase(caseId: string, userId: string): Promise<{ text: string; level: number } | null> {
  const { data } = await supabase()
    .from('case_submissions')
    .select('status, submission_text, difficulty_rating, ai_failed_at')
    .eq('case_id', caseId)
    .eq('user_id', userId)
    .order('submitted_at', { ascending: false })
    .limit(1);
  const last = data?.[0];
  if (!last || last.status !== 'submitted' || !last.ai_failed_at) return null;
  return { text: last.submission_text, level: last.difficulty_rating };
}
