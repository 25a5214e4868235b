import { supabase } from '../../../lib/supabase';
import { watchTables } from '../../../lib/realtime';
import type { Database } from '../../../types/database';
import type { Known } from '../../../types/rows';
import type { Attempt } from '../utils/attempts';
import type { GradedWork } from '../components/CriteriaOverview';

// My Progress's door to the server: the student's own submissions, appeals, tutor
// conversations, case progress and generated cases (RLS gives only their own rows).

type Tables = Database['public']['Tables'];
export type AppealState = Pick<Tables['submission_appeals']['Row'], 'submission_id' | 'decision_reason'> & { status: 'pending' | 'released' | 'confirmed' };
export type Conv = Pick<Tables['chat_conversations']['Row'], 'id' | 'case_id' | 'message_count' | 'last_message_at'> & {
  conversation_data: { role: string; content: string; timestamp: string }[];
  cases: Pick<Tables['cases']['Row'], 'case_code' | 'title'> | null;
};
// case_progress is a view: its generated columns are all nullable; these are never null.
export type Progress = Known<Database['public']['Views']['case_progress']['Row'], 'case_id' | 'case_code' | 'case_title' | 'status' | 'completed_at', 'case_id' | 'case_code' | 'case_title' | 'status'>;
export type GeneratedCase = Pick<Tables['cases']['Row'], 'id' | 'case_code' | 'title' | 'created_at' | 'rejection_reason'> & { status: string };

export async function fetchSubmissions(userId: string): Promise<Attempt[]> {
  const { data } = await supabase()
    .from('submissions_with_details')
    .select('id, case_id, case_code, case_title, score, score_value, feedback_text, submitted_at, difficulty_rating, status, state')
    .eq('user_id', userId)
    .order('submitted_at', { ascending: false });
  return (data as Attempt[] | null) ?? [];
}

// Per-criterion scores of graded work, for the criterion view.
export async function fetchGraded(userId: string): Promise<GradedWork[]> {
  const { data } = await supabase().from('case_submissions').select('submitted_at, score_breakdown, difficulty_rating').eq('user_id', userId).eq('status', 'graded').order('submitted_at');
  return data ?? [];
}

// Work handed in for a seminar assignment: whether it was late, and the assistant's grade
// of record with their comment once set (issue 30).
export type SeminarWork = { late: boolean; grade: { score: number; comment: string | null; source: string } | null };
export async function fetchSeminarWork(userId: string): Promise<Map<string, SeminarWork>> {
  const { data } = await supabase()
    .from('case_submissions')
    .select('id, late, seminar_grades(score, comment, source)')
    .eq('user_id', userId)
    .not('assignment_id', 'is', null);
  const rows = (data ?? []) as unknown as { id: string; late: boolean; seminar_grades: SeminarWork['grade'] | SeminarWork['grade'][] }[];
  return new Map(rows.map((r) => [r.id, { late: r.late, grade: Array.isArray(r.seminar_grades) ? (r.seminar_grades[0] ?? null) : r.seminar_grades }]));
}

export async function fetchAppeals(userId: string): Promise<AppealState[]> {
  const { data } = await supabase().from('submission_appeals').select('submission_id, status, decision_reason').eq('user_id', userId);
  return (data as AppealState[] | null) ?? [];
}

export async function fetchConversations(userId: string): Promise<Conv[]> {
  const { data } = await supabase()
    .from('chat_conversations')
    .select('id, case_id, conversation_data, message_count, last_message_at, cases(case_code, title)')
    .eq('user_id', userId)
    .gt('message_count', 0)
    .order('last_message_at', { ascending: false });
  return (data as unknown as Conv[] | null) ?? [];
}

export async function fetchCaseProgress(userId: string): Promise<Progress[]> {
  const { data } = await supabase().from('case_progress').select('case_id, case_code, case_title, status, completed_at').eq('user_id', userId);
  return (data as Progress[] | null) ?? [];
}

export async function fetchMyGeneratedCases(): Promise<GeneratedCase[]> {
  const { data, error } = await supabase().rpc('my_generated_cases');
  if (error) console.error('generated cases load failed', error);
  return (data as unknown as GeneratedCase[] | null) ?? [];
}

// Grades, the assistant's grades of record and appeal decisions land live, also from another tab or device.
export function watchMyProgress(userId: string, onChange: () => void): () => void {
  return watchTables(
    `progress-${userId}`,
    [
      { table: 'case_submissions', filter: `user_id=eq.${userId}` },
      { table: 'submission_appeals', filter: `user_id=eq.${userId}` },
      { table: 'seminar_grades', filter: `student_id=eq.${userId}` },
    ],
    onChange,
  );
}
