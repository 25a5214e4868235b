// The student's assignments (the dashboard's "Teme"), apart from the feature's other calls:
// the dashboard fetches this list before loading the section's code, so a student in no
// seminar group loads none of it.
import { supabase } from '../../../lib/supabase';
import type { Database } from '../../../types/database';

type Fns = Database['public']['Functions'];
// The generated function rows mark no column nullable; these are null until work or a grade exists.
type Nullable<T, K extends keyof T> = Omit<T, K> & { [P in K]: T[P] | null };
export type MyAssignment = Nullable<
  Fns['seminar_my_assignments']['Returns'][number],
  'case_id' | 'case_code' | 'case_title' | 'submission_id' | 'exam_id' | 'submitted_at' | 'ai_score' | 'grade' | 'grade_source' | 'grade_comment' | 'graded_at' | 'grile_count' | 'grile_minutes'
>;

export async function fetchMyAssignments(): Promise<MyAssignment[]> {
  const { data, error } = await supabase().rpc('seminar_my_assignments');
  if (error) throw new Error(error.message);
  return (data ?? []) as MyAssignment[];
}
