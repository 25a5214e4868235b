// The grile's data access: the only module of the feature that talks to the server. Types
// come from the generated Database types; the RPCs returning tables (typed there as plain
// records) are given their row types here, from the columns of migration 015.
import { supabase } from '../../../lib/supabase';
import type { Database } from '../../../types/database';

type Tables = Database['public']['Tables'];
type Fns = Database['public']['Functions'];

export type Domain = 'civil' | 'penal' | 'constitutional';
export type Letter = 'a' | 'b' | 'c';
export const LETTERS: Letter[] = ['a', 'b', 'c'];
export type Level = 'Ușor' | 'Mediu' | 'Dificil';
export const LEVELS: Level[] = ['Ușor', 'Mediu', 'Dificil'];

export const DOMAINS: { code: Domain; name: string }[] = [
  { code: 'civil', name: 'Drept civil' },
  { code: 'penal', name: 'Drept penal' },
  { code: 'constitutional', name: 'Drept constituțional' },
];

export type Category = Pick<Tables['law_categories']['Row'], 'id' | 'domain' | 'name' | 'position'>;

// The public part of a question (the answer key has no column grant).
export type Question = Pick<Tables['grile_questions']['Row'], 'id' | 'code' | 'domain' | 'category_id' | 'subcategory' | 'level' | 'statement' | 'options'>;
const QUESTION_COLUMNS = 'id, code, domain, category_id, subcategory, level, statement, options';

// The FSRS card as grile_cards stores it (dates as ISO strings).
export type StoredCard = Pick<Tables['grile_cards']['Row'], 'due' | 'stability' | 'difficulty' | 'elapsed_days' | 'scheduled_days' | 'learning_steps' | 'reps' | 'lapses' | 'state' | 'last_review'>;

export type PracticeQuestion = Question & { law_as_of: string; card: StoredCard | null; is_due: boolean };

export type Citation = { code: Domain; article: string; label: string };

// What grile_answer reveals after an answer.
export type Revealed = { is_correct: boolean; chosen: Letter[]; correct: Letter[]; explanations: string[]; citations: Citation[][]; due: string };

export type Exam = Tables['grile_exams']['Row'];
export type CategoryResult = { category_id: string; total: number; correct: number };
export type ExamItem = { position: number; question: Question; chosen: Letter[] };
export type ReviewItem = {
  question_position: number; question_id: string; code: string; category_id: string; subcategory: string; level: string;
  statement: string; options: string[]; chosen: Letter[] | null; is_correct: boolean; correct: Letter[]; explanations: string[]; citations: Citation[][];
};
export type CategoryProgress = { domain: Domain; category_id: string; total: number; mastered: number; learning: number; new: number };

export type Filters = { domain: Domain | null; categories: string[]; level: Level | null; count: number };

function check<T>(r: { data: T | null; error: { message: string } | null }): T {
  if (r.error) throw new Error(r.error.message);
  return r.data as T;
}

const args = (f: Filters) => ({
  p_domain: f.domain ?? undefined,
  p_categories: f.categories.length ? f.categories : undefined,
  p_level: f.level ?? undefined,
  p_count: f.count,
});

export async function fetchCategories(): Promise<Category[]> {
  const r = await supabase().from('law_categories').select('id, domain, name, position').eq('catch_all', false).neq('domain', 'roman').order('position');
  return check(r) ?? [];
}

export async function practiceSet(f: Filters, now: Date, dueOnly = false): Promise<PracticeQuestion[]> {
  const a: Fns['grile_practice_set']['Args'] = { ...args(f), p_now: now.toISOString(), p_due_only: dueOnly };
  return (check(await supabase().rpc('grile_practice_set', a)) ?? []) as unknown as PracticeQuestion[];
}

// Questions due at `now` (the browser's clock: it only orders the student's own cards).
export async function dueCount(now: Date): Promise<number> {
  const r = await supabase().from('grile_cards').select('question_id', { count: 'exact', head: true }).lte('due', now.toISOString());
  if (r.error) throw new Error(r.error.message);
  return r.count ?? 0;
}

export async function answer(questionId: string, chosen: Letter[], ifWrong: object, ifRight: object): Promise<Revealed> {
  const a: Fns['grile_answer']['Args'] = { p_question_id: questionId, p_chosen: chosen, p_if_wrong: ifWrong as never, p_if_right: ifRight as never };
  return check(await supabase().rpc('grile_answer', a)) as unknown as Revealed;
}

export async function progress(): Promise<CategoryProgress[]> {
  return (check(await supabase().rpc('grile_progress')) ?? []) as unknown as CategoryProgress[];
}

export async function startExam(f: Filters, minutes: number): Promise<Exam> {
  const a: Fns['grile_exam_start']['Args'] = { ...args(f), p_minutes: minutes };
  return check(await supabase().rpc('grile_exam_start', a));
}

// The exam of a seminar assignment (issue 30): its questions and time are the assistant's;
// a running one is returned as it is. Refusals (deadline passed, no attempts left) come back
// as Romanian messages.
export async function startAssignmentExam(assignmentId: string): Promise<Exam> {
  return check(await supabase().rpc('seminar_grile_start', { p_assignment_id: assignmentId }));
}

// The questions of an exam in order, with what was answered so far.
export async function examItems(examId: string): Promise<ExamItem[]> {
  const sb = supabase();
  const rows = check(await sb.from('grile_exam_answers').select('position, question_id, chosen').eq('exam_id', examId).order('position')) ?? [];
  if (!rows.length) return [];
  const qs = check(await sb.from('grile_questions').select(QUESTION_COLUMNS).in('id', rows.map((r) => r.question_id))) ?? [];
  const byId = new Map(qs.map((q) => [q.id, q as Question]));
  return rows.filter((r) => byId.has(r.question_id)).map((r) => ({ position: r.position, question: byId.get(r.question_id)!, chosen: (r.chosen ?? []) as Letter[] }));
}

export async function saveExamAnswer(examId: string, questionId: string, chosen: Letter[]): Promise<void> {
  const a: Fns['grile_exam_answer']['Args'] = { p_exam_id: examId, p_question_id: questionId, p_chosen: chosen };
  check(await supabase().rpc('grile_exam_answer', a));
}

export async function finishExam(examId: string): Promise<Exam> {
  return check(await supabase().rpc('grile_exam_finish', { p_exam_id: examId }));
}

export async function examReview(examId: string): Promise<ReviewItem[]> {
  return (check(await supabase().rpc('grile_exam_review', { p_exam_id: examId })) ?? []) as unknown as ReviewItem[];
}

export async function recentExams(): Promise<Exam[]> {
  return check(await supabase().from('grile_exams').select('*').order('started_at', { ascending: false }).limit(10)) ?? [];
}
