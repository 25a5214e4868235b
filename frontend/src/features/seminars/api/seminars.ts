// The seminars' door to the server (issue 30): groups, join codes, members, assignments,
// the grade table, grades of record and notifications. Every write is an RPC of migration
// 026, whose errors are Romanian sentences ready to show (SeminarError keeps the stable
// hint a screen reacts to); RLS decides what each read returns.
import { supabase } from '../../../lib/supabase';
import { watchTables } from '../../../lib/realtime';
import type { Database, Json } from '../../../types/database';
import type { GradebookRow } from '../utils/gradebook';

type Tables = Database['public']['Tables'];
type Fns = Database['public']['Functions'];

export type Group = Tables['seminar_groups']['Row'];
export type JoinCode = Tables['seminar_join_codes']['Row'];
export type Assignment = Tables['seminar_assignments']['Row'];
export type University = Pick<Tables['universities']['Row'], 'code' | 'name'>;
export type Person = Omit<Fns['seminar_people']['Returns'][number], 'kind' | 'left_at'> & { kind: 'owner' | 'teacher' | 'member'; left_at: string | null };
export type Preview = Omit<Fns['seminar_preview']['Returns'][number], 'staff'> & { staff: { username: string; name: string; role: string }[] };
export type Notification = Pick<Tables['seminar_notifications']['Row'], 'id' | 'kind' | 'body' | 'created_at' | 'read_at' | 'group_id' | 'assignment_id' | 'submission_id'>;
export type Stats = {
  members: number;
  handed_in: number;
  graded: number;
  median: number | null;
  mean: number | null;
  distribution: { from: number; to: number; count: number }[];
  weakest: { id: string; label: string; average_pct: number }[];
};
export type Context = Fns['seminar_submission_context']['Returns'][number];
export type Submission = Pick<
  Tables['case_submissions']['Row'],
  'id' | 'submission_text' | 'status' | 'score' | 'score_value' | 'score_breakdown' | 'feedback_text' | 'ai_probability' | 'ai_decision' | 'ai_justification' | 'submitted_at' | 'late' | 'difficulty_rating' | 'case_id'
>;
export type GradeOfRecord = Tables['seminar_grades']['Row'];

// A refused RPC: the server's Romanian message, and the hint key some screens react to.
export class SeminarError extends Error {
  constructor(message: string, readonly hint: string | null, readonly code: string | null) {
    super(message);
  }
}

type PgError = { message: string; hint?: string | null; code?: string | null } | null;
function check<T>(r: { data: T | null; error: PgError }): T {
  if (r.error) throw new SeminarError(r.error.message || 'Eroare necunoscută', r.error.hint ?? null, r.error.code ?? null);
  return r.data as T;
}
const one = <T,>(rows: T[] | T | null): T | null => (Array.isArray(rows) ? (rows[0] ?? null) : rows);

// Groups ----------------------------------------------------------------------------------

export async function fetchUniversities(): Promise<University[]> {
  return check(await supabase().from('universities').select('code, name').order('position'));
}

// The groups the caller teaches and those they are a member of (RLS: nothing else).
export async function fetchMyGroups(userId: string): Promise<{ teaching: Group[]; member: Group[] }> {
  const [groups, staff, members] = await Promise.all([
    supabase().from('seminar_groups').select('*').order('created_at', { ascending: false }),
    supabase().from('seminar_staff').select('group_id').eq('user_id', userId),
    supabase().from('seminar_members').select('group_id').eq('user_id', userId).is('left_at', null),
  ]);
  const all = check(groups);
  const teaching = new Set(check(staff).map((s) => s.group_id));
  const member = new Set(check(members).map((m) => m.group_id));
  return { teaching: all.filter((g) => teaching.has(g.id)), member: all.filter((g) => member.has(g.id)) };
}

export async function fetchGroup(id: string): Promise<Group | null> {
  return one(check(await supabase().from('seminar_groups').select('*').eq('id', id).maybeSingle()));
}

export type GroupFields = { name: string; university_code: string; academic_year: string; semester: number };

export async function createGroup(f: GroupFields, codeExpiresAt: string | null): Promise<Group> {
  return check(
    await supabase().rpc('seminar_create_group', {
      p_name: f.name,
      p_university_code: f.university_code,
      p_academic_year: f.academic_year,
      p_semester: f.semester,
      ...(codeExpiresAt ? { p_code_expires_at: codeExpiresAt } : {}),
    }),
  );
}

export async function updateGroup(id: string, f: GroupFields): Promise<Group> {
  return check(
    await supabase().rpc('seminar_update_group', { p_group_id: id, p_name: f.name, p_university_code: f.university_code, p_academic_year: f.academic_year, p_semester: f.semester }),
  );
}

export async function fetchCurrentCode(groupId: string): Promise<JoinCode | null> {
  return check(await supabase().from('seminar_join_codes').select('*').eq('group_id', groupId).is('retired_at', null).maybeSingle());
}

export async function rotateCode(groupId: string, expiresAt: string | null): Promise<JoinCode> {
  return check(await supabase().rpc('seminar_rotate_code', { p_group_id: groupId, ...(expiresAt ? { p_expires_at: expiresAt } : {}) }));
}

export async function fetchPeople(groupId: string): Promise<Person[]> {
  return check(await supabase().rpc('seminar_people', { p_group_id: groupId })) as Person[];
}

export async function addTeacher(groupId: string, username: string): Promise<void> {
  check(await supabase().rpc('seminar_add_teacher', { p_group_id: groupId, p_username: username }));
}

export async function removeTeacher(groupId: string, userId: string): Promise<void> {
  check(await supabase().rpc('seminar_remove_teacher', { p_group_id: groupId, p_user_id: userId }));
}

export async function removeMember(groupId: string, userId: string): Promise<void> {
  check(await supabase().rpc('seminar_remove_member', { p_group_id: groupId, p_user_id: userId }));
}

// Joining ---------------------------------------------------------------------------------

export async function previewCode(code: string): Promise<Preview | null> {
  return one(check(await supabase().rpc('seminar_preview', { p_code: code }))) as Preview | null;
}

export const UNKNOWN_CODE = 'Codul nu există. Verifică-l sau cere-i asistentului codul grupei.';

// No row back: the code does not exist.
export async function joinGroup(code: string): Promise<void> {
  const rows = check(await supabase().rpc('seminar_join', { p_code: code }));
  if (!rows?.length) throw new SeminarError(UNKNOWN_CODE, 'seminar_code_unknown', null);
}

export async function leaveGroup(groupId: string): Promise<void> {
  check(await supabase().rpc('seminar_leave', { p_group_id: groupId }));
}

// Assignments -----------------------------------------------------------------------------

export async function fetchAssignments(groupId: string): Promise<Assignment[]> {
  return check(await supabase().from('seminar_assignments').select('*').eq('group_id', groupId).order('deadline'));
}

export type CaseChoice = { id: string; case_code: string; title: string; verified: boolean; rejection_reason: string | null };

// Cases whose code or title holds the text, for the assignment form (rejected ones too: the
// server says why they cannot be set).
export async function searchCases(q: string): Promise<CaseChoice[]> {
  const t = q.replace(/[%,()*]/g, ' ').trim();
  if (!t) return [];
  const r = await supabase().from('cases').select('id, case_code, title, verified, rejection_reason').or(`case_code.ilike.*${t}*,title.ilike.*${t}*`).order('case_code').limit(20);
  return check(r) as CaseChoice[];
}

export type CategoryChoice = { id: string; domain: string; name: string };
export async function fetchCategories(): Promise<CategoryChoice[]> {
  return check(await supabase().from('law_categories').select('id, domain, name').order('domain').order('position'));
}

export type GrilaChoice = { id: string; code: string; statement: string; category_id: string; level: string };

// Grile whose code or statement holds the text, for an assignment of chosen questions
// (retired ones cannot be set). Only the statement: the answer key has no grant.
export async function searchGrile(q: string): Promise<GrilaChoice[]> {
  const t = q.replace(/[%,()*"\\]/g, ' ').trim();
  if (!t) return [];
  const r = await supabase()
    .from('grile_questions')
    .select('id, code, statement, category_id, level')
    .is('retired_at', null)
    .or(`code.ilike.*${t}*,statement.ilike.*${t}*`)
    .order('code')
    .limit(20);
  return check(r) as GrilaChoice[];
}

export type NewAssignment = {
  kind: 'case' | 'grile';
  title: string;
  caseId: string | null;
  opensAt: string;
  deadline: string;
  strictness: number;
  tutorAllowed: boolean;
  revisions: number;
  latePolicy: 'accept' | 'refuse';
  instructions: string;
  // Grile: drawn per student from categories, or the questions chosen here (in this order).
  grileMode: 'drawn' | 'chosen';
  grileQuestions: GrilaChoice[];
  grileCategories: string[];
  grileCount: number;
  grileMinutes: number;
};

export async function createAssignment(groupId: string, a: NewAssignment): Promise<Assignment> {
  return check(
    await supabase().rpc('seminar_create_assignment', {
      p_group_id: groupId,
      p_kind: a.kind,
      p_deadline: a.deadline,
      ...(a.title.trim() ? { p_title: a.title.trim() } : {}),
      ...(a.opensAt ? { p_opens_at: a.opensAt } : {}),
      p_instructions: a.instructions,
      p_strictness: a.strictness,
      p_tutor_allowed: a.tutorAllowed,
      p_revisions_allowed: a.revisions,
      p_late_policy: a.latePolicy,
      ...(a.kind === 'case' && a.caseId ? { p_case_id: a.caseId } : {}),
      ...(a.kind === 'grile' ? { p_grile_minutes: a.grileMinutes } : {}),
      ...(a.kind === 'grile' && a.grileMode === 'drawn' ? { p_grile_categories: a.grileCategories, p_grile_count: a.grileCount } : {}),
      ...(a.kind === 'grile' && a.grileMode === 'chosen' ? { p_grile_question_ids: a.grileQuestions.map((g) => g.id) } : {}),
    }),
  );
}

// The grade table and its statistics ----------------------------------------------------------

export async function fetchGradebook(groupId: string): Promise<GradebookRow[]> {
  return check(await supabase().rpc('seminar_gradebook', { p_group_id: groupId })) as unknown as GradebookRow[];
}

export async function fetchStats(assignmentId: string): Promise<Stats> {
  return check(await supabase().rpc('seminar_assignment_stats', { p_assignment_id: assignmentId })) as unknown as Stats;
}

// Work landing, grades set, members joining or leaving: the staff table reads again.
export function watchGroup(groupId: string, onChange: () => void, onLive?: () => void): () => void {
  return watchTables(
    `seminar-${groupId}`,
    [
      { table: 'case_submissions' },
      { table: 'seminar_grades' },
      { table: 'grile_exams' },
      { table: 'seminar_members', filter: `group_id=eq.${groupId}` },
      { table: 'seminar_assignments', filter: `group_id=eq.${groupId}` },
    ],
    onChange,
    onLive,
  );
}

// One submission ----------------------------------------------------------------------------

export async function fetchSubmission(id: string): Promise<{ sub: Submission; context: Context | null; grade: GradeOfRecord | null }> {
  const [sub, context, grade] = await Promise.all([
    supabase()
      .from('case_submissions')
      .select('id, submission_text, status, score, score_value, score_breakdown, feedback_text, ai_probability, ai_decision, ai_justification, submitted_at, late, difficulty_rating, case_id')
      .eq('id', id)
      .single(),
    supabase().rpc('seminar_submission_context', { p_submission_id: id }),
    supabase().from('seminar_grades').select('*').eq('submission_id', id).maybeSingle(),
  ]);
  return { sub: check(sub), context: one(check(context)), grade: check(grade) };
}

export async function confirmGrade(submissionId: string, comment: string): Promise<void> {
  check(await supabase().rpc('seminar_confirm_grade', { p_submission_id: submissionId, ...(comment.trim() ? { p_comment: comment.trim() } : {}) }));
}

export async function setGrade(submissionId: string, criteria: { id: string; score: number; comment?: string }[], comment: string): Promise<void> {
  check(
    await supabase().rpc('seminar_set_grade', {
      p_submission_id: submissionId,
      p_criteria: criteria as unknown as Json,
      ...(comment.trim() ? { p_comment: comment.trim() } : {}),
    }),
  );
}

// The student's side ------------------------------------------------------------------------

// The student's grades and work landing (on this tab or another device).
export function watchMyWork(userId: string, onChange: () => void): () => void {
  return watchTables(
    `seminar-work-${userId}`,
    [
      { table: 'seminar_grades', filter: `student_id=eq.${userId}` },
      { table: 'case_submissions', filter: `user_id=eq.${userId}` },
      { table: 'seminar_assignments' },
    ],
    onChange,
  );
}

// Notifications ---------------------------------------------------------------------------

export async function fetchNotifications(): Promise<Notification[]> {
  return check(
    await supabase().from('seminar_notifications').select('id, kind, body, created_at, read_at, group_id, assignment_id, submission_id').order('id', { ascending: false }).limit(50),
  );
}

export async function markAllRead(ids: number[]): Promise<void> {
  if (!ids.length) return;
  check(await supabase().from('seminar_notifications').update({ read_at: new Date().toISOString() }).in('id', ids));
}

export function watchNotifications(userId: string, onChange: () => void): () => void {
  return watchTables(`notifications-${userId}`, [{ table: 'seminar_notifications', filter: `user_id=eq.${userId}` }], onChange);
}
