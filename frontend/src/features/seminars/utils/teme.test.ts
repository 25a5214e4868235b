import { expect, test } from 'vitest';
import { bucketOf, workLine } from './teme';

const now = Date.parse('2026-03-10T12:00:00Z');
const at = (h: number) => new Date(now + h * 3600_000).toISOString();

test('due soon, open, finished', () => {
  expect(bucketOf({ deadline: at(5), state: 'not_started', can_submit: true }, now)).toBe('due_soon');
  expect(bucketOf({ deadline: at(5), state: 'ai_graded', can_submit: true }, now)).toBe('open');
  expect(bucketOf({ deadline: at(5), state: 'ai_graded', can_submit: false }, now)).toBe('finished');
  expect(bucketOf({ deadline: at(72), state: 'in_progress', can_submit: true }, now)).toBe('open');
  expect(bucketOf({ deadline: at(-1), state: 'not_started', can_submit: true }, now)).toBe('finished');
});

test('what the student reads of their work', () => {
  expect(workLine({ state: 'not_started', ai_score: null, grade: null, grade_source: null, late: false, kind: 'case' })).toBe('Neînceput');
  expect(workLine({ state: 'confirmed', ai_score: 78, grade: 80.5, grade_source: 'staff', late: true, kind: 'case' })).toBe('Confirmat · nota AI 78 · nota asistentului 80,5 · întârziată');
});
