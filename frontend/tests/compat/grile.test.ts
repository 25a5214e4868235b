// The grile through /rest/v1 with the stock supabase-js client: the answer key closed to
// direct reads, scoring and the FSRS card through grile_answer (text[] and jsonb arguments),
// an exam's key closed until it is finished, and nothing of one student visible to another.
import { beforeAll, describe, expect, test } from 'vitest';
import { anonClient, run, service, student, type Student } from './rls-shared';

let a: Student;
let b: Student;
const ids: string[] = [];

const card = (at: Date, days: number) => ({
  due: new Date(at.getTime() + days * 86_400_000).toISOString(), last_review: at.toISOString(),
  stability: days, difficulty: 5, elapsed_days: 0, scheduled_days: days, learning_steps: 0, reps: 1, lapses: 0, state: 2,
});

beforeAll(async () => {
  [a, b] = await Promise.all([student('ga'), student('gb')]);
  // Codes GPEN900–999, above the shipped ones.
  const base = 900 + (Number.parseInt(run.slice(-3), 36) % 50) * 2;
  for (let i = 0; i < 2; i++) {
    const { data, error } = await service.from('grile_questions').insert({
      code: `GPEN${base + i}`, domain: 'penal', category_id: 'legea_penala',
      subcategory: 'Test', level: 'Mediu', law_as_of: '2026-11-01', statement: `Contract ${run} ${i}: potrivit Codului penal:`,
      options: ['unu', 'doi', 'trei'], correct: ['a', 'c'],
      explanations: ['Corect: art. 1 C.pen. — a', 'Greșit: art. 2 C.pen. — b', 'Corect: art. 3 C.pen. — c'],
      citations: [[{ code: 'penal', article: '1', label: 'art. 1 C.pen.' }], [], []],
    }).select('id').single();
    expect(error).toBeNull();
    ids.push(data!.id);
  }
});

describe('grile', () => {
  test('statement and options for the signed-in; the key only through an answer', async () => {
    const ok = await a.sb.from('grile_questions').select('id, statement, options').in('id', ids);
    expect(ok.error).toBeNull();
    expect(ok.data).toHaveLength(2);
    for (const cols of ['*', 'correct', 'id, explanations', 'citations']) {
      const r = await a.sb.from('grile_questions').select(cols).in('id', ids);
      expect(r.error?.code, cols).toBe('42501');
    }
    const anon = await anonClient().from('grile_questions').select('id').in('id', ids);
    expect(anon.error?.code).toBe('42501');

    const now = new Date();
    const wrong = await a.sb.rpc('grile_answer', { p_question_id: ids[0], p_chosen: ['a'], p_if_wrong: card(now, 1), p_if_right: card(now, 3) });
    expect(wrong.error).toBeNull();
    expect(wrong.data).toMatchObject({ is_correct: false, chosen: ['a'], correct: ['a', 'c'] });
    expect((wrong.data as { explanations: string[] }).explanations).toHaveLength(3);
    const right = await a.sb.rpc('grile_answer', { p_question_id: ids[1], p_chosen: ['c', 'a'], p_if_wrong: card(now, 1), p_if_right: card(now, 3) });
    expect(right.data).toMatchObject({ is_correct: true, chosen: ['a', 'c'] });

    const cards = await a.sb.from('grile_cards').select('question_id, due, last_correct').in('question_id', ids).order('due');
    expect(cards.data?.map((c) => [c.question_id, c.last_correct])).toEqual([[ids[0], false], [ids[1], true]]);
    // B sees none of it, and cannot write a card or an attempt directly.
    for (const t of ['grile_cards', 'grile_attempts', 'grile_exams'] as const) {
      const r = await b.sb.from(t).select('*');
      expect(r.error).toBeNull();
      expect(r.data, t).toEqual([]);
    }
    const forged = await b.sb.from('grile_attempts').insert({ user_id: b.id, question_id: ids[0], chosen: ['a', 'c'], is_correct: true });
    expect(forged.error?.code).toBe('42501');
  });

  test('an exam keeps its key until finished, and the score is the server\'s', async () => {
    const start = await b.sb.rpc('grile_exam_start', { p_domain: 'penal', p_categories: ['legea_penala'], p_level: 'Mediu', p_count: 100, p_minutes: 10 });
    expect(start.error).toBeNull();
    const exam = start.data!;
    expect(exam.question_count).toBeGreaterThanOrEqual(2);
    const early = await b.sb.rpc('grile_exam_review', { p_exam_id: exam.id });
    expect(early.error?.code).toBe('42501');
    const peek = await b.sb.rpc('grile_answer', { p_question_id: ids[0], p_chosen: ['a'], p_if_wrong: card(new Date(), 1), p_if_right: card(new Date(), 3) });
    expect(peek.error?.code).toBe('42501');
    expect((await b.sb.rpc('grile_exam_answer', { p_exam_id: exam.id, p_question_id: ids[0], p_chosen: ['a', 'c'] })).error).toBeNull();
    expect((await b.sb.rpc('grile_exam_answer', { p_exam_id: exam.id, p_question_id: ids[1], p_chosen: ['a'] })).error).toBeNull();
    const forged = await b.sb.from('grile_exams').update({ correct_count: 99 }).eq('id', exam.id);
    expect(forged.error?.code).toBe('42501');
    // A cannot touch B's exam.
    expect((await a.sb.rpc('grile_exam_finish', { p_exam_id: exam.id })).error?.code).toBe('PT404');

    const done = await b.sb.rpc('grile_exam_finish', { p_exam_id: exam.id });
    expect(done.error).toBeNull();
    expect(done.data!.finished_at).not.toBeNull();
    expect(done.data!.correct_count).toBeGreaterThanOrEqual(1); // ids[0] exactly; ids[1] a subset
    const review = await b.sb.rpc('grile_exam_review', { p_exam_id: exam.id });
    const rows = review.data as { question_id: string; is_correct: boolean; correct: string[] }[];
    expect(rows.find((r) => r.question_id === ids[0])).toMatchObject({ is_correct: true, correct: ['a', 'c'] });
    expect(rows.find((r) => r.question_id === ids[1])).toMatchObject({ is_correct: false });
    expect((await b.sb.rpc('grile_exam_answer', { p_exam_id: exam.id, p_question_id: ids[1], p_chosen: ['a', 'c'] })).error?.code).toBe('42501');
  });
});
