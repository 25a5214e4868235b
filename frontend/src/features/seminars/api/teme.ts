// The student's assignments (the dashboard's "Teme"), apart from the feature's other calls:
// the dashboard fetches this list before loading the section's code, so a student in no
// seminar group loads none of it.
import { watchTables } from '../../../lib/realtime';
import { supabase } from '../../../lib/supabase';
import type { Database } from '../../../types/database';

type Fns = Database['public']['Functions'];
// The generated function rows mark no column nullable; these are null until work or a grade exists.
type Nullable<T, K extends keyof T> = Omit<T, K> & { [P in K]: T[P] | null };
export type MyAssignment = Nullable<
  Fns['seminar_my_assignments']['Returns'][number],
  'case_id' | 'case_code' | 'case_title' | 'submission_id' | 'exam_id' | 'submitted_at' | 'ai_score' | 'grade' | 'grade_source' | 'grade_comment' | 'graded_at' | 'grile_count' | 'grile_minutes'
>;

// The assignments, and whether the student is in any group now (only then is the list
// followed live: a student in no group opens no realtime channel for it). Staff see their
// groups' rows too, hence the user filter.
export type MyTeme = { list: MyAssignment[]; member: boolean };

export async function fetchMyTeme(userId: string): Promise<MyTeme> {
  const [list, members] = await Promise.all([
    supabase().rpc('seminar_my_assignments'),
    supabase().from('seminar_members').select('id', { count: 'exact', head: true }).eq('user_id', userId).is('left_at', null),
  ]);
  if (list.error) throw new Error(list.error.message);
  return { list: (list.data ?? []) as MyAssignment[], member: (members.count ?? 0) > 0 };
}

// A new assignment and a confirmed grade each write the student a notification row (app
// 026's triggers), so that one filtered table tells the "Teme" when to read again; onLive
// reads again what changed before the channel was joined.
export function watchMyTeme(userId: string, onChange: () => void): () => void {
  return watchTables(`teme-${userId}`, [{ table: 'seminar_notifications', event: 'INSERT', filter: `user_id=eq.${userId}` }], onChange, onChange);
}
