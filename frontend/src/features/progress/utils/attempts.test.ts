import { describe, expect, test } from 'vitest';
import { attemptLabel, groupByCase, type Attempt } from './attempts';

describe('My Progress attempts', () => {
  const a = (id: string, c: string, at: string): Attempt => ({
    id, case_id: c, case_code: c.toUpperCase(), case_title: 'T', score: null, score_value: null, feedback_text: null, submitted_at: at, difficulty_rating: 3, status: 'submitted', state: 'pending',
  });
  test('grouped by case, the latest case first, earlier attempts newest first', () => {
    const g = groupByCase([a('1', 'x', '2026-01-01'), a('2', 'y', '2026-01-02'), a('3', 'x', '2026-01-03'), a('4', 'x', '2026-01-02T12:00')]);
    expect(g.map((x) => [x.case_id, x.latest.id, x.earlier.map((e) => e.id)])).toEqual([
      ['x', '3', ['4', '1']],
      ['y', '2', []],
    ]);
  });
  test('an attempt without a grade says what became of it', () => {
    expect(attemptLabel({ score: '78/100', state: 'graded' })).toBe('78/100');
    expect(attemptLabel({ score: null, state: 'blocked' })).toBe('Blocată de verificarea AI');
    expect(attemptLabel({ score: null, state: 'failed' })).toBe('Evaluare eșuată — reîncearcă');
    expect(attemptLabel({ score: null, state: 'grading' })).toBe('În curs');
    expect(attemptLabel({ score: null, state: 'pending' })).toBe('În curs');
  });
});
