import { supabase } from '../../../lib/supabase';
import { watchTables } from '../../../lib/realtime';
import type { Database } from '../../../types/database';

// A seminar assignment on the open case (issue 30): its settings (fixed strictness, tutor
// allowed, revisions that count, deadline) and the student's work on it, with the
// assistant's grade of record. RLS gives the student only their own.

type Row = Database['public']['Functions']['seminar_my_assignments']['Returns'][number];
type MaybeNull<T, K extends keyof T> = Omit<T, K> & { [P in K]: T[P] | null };
export type CaseAssignment = MaybeNull<
  Pick<Row, 'assignment_id' | 'title' | 'group_name' | 'instructions' | 'opens_at' | 'deadline' | 'strictness' | 'tutor_allowed' | 'revisions_allowed' | 'late_policy' | 'attempts_used' | 'can_submit' | 'state' | 'submission_id' | 'submitted_at' | 'late' | 'ai_score' | 'grade' | 'grade_source' | 'grade_comment' | 'graded_at'>,
  'submission_id' | 'submitted_at' | 'ai_score' | 'grade' | 'grade_source' | 'grade_comment' | 'graded_at'
>;
export type StaffCriterion = { id: string; label: string; score: number; max: number; ai_score: number | null; comment: string | null };

// The assignment on this case the student can still hand work in for (the earliest
// deadline), else the latest one they have work on; null without a seminar.
export async function caseAssignment(caseId: string): Promise<CaseAssignment | null> {
  const { data, error } = await supabase().rpc('seminar_my_assignments').eq('case_id', caseId);
  if (error || !data?.length) return null;
  const rows = data as CaseAssignment[];
  const open = rows.filter((r) => r.can_submit).sort((a, b) => a.deadline.localeCompare(b.deadline));
  return open[0] ?? rows.sort((a, b) => b.deadline.localeCompare(a.deadline))[0];
}

// The assistant's criteria of a graded submission (only those they changed or commented
// are shown beside the AI's).
export async function staffCriteria(submissionId: string): Promise<StaffCriterion[]> {
  const { data } = await supabase().from('seminar_grades').select('criteria').eq('submission_id', submissionId).maybeSingle();
  return ((data?.criteria as StaffCriterion[] | null) ?? []).filter((c) => c.score !== c.ai_score || !!c.comment);
}

// The work and its grades landing: the grade of record the moment the assistant sets it.
export function watchAssignmentWork(userId: string, caseId: string, onChange: () => void): () => void {
  return watchTables(
    `tema-${userId}-${caseId}`,
    [
      { table: 'seminar_grades', filter: `student_id=eq.${userId}` },
      { table: 'case_submissions', filter: `user_id=eq.${userId}` },
    ],
    onChange,
  );
}
