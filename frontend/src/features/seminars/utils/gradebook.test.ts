import { expect, test } from 'vitest';
import { cellText, fmtNum, gradebookCsv, pivot, type GradebookRow } from './gradebook';

const row = (over: Partial<GradebookRow>): GradebookRow => ({
  student_id: 's1', username: 'ana', name: 'Ana Ionescu', active: true, assignment_id: 'a1', assignment_title: 'Tema 1', kind: 'case',
  deadline: '2026-03-14T16:00:00Z', state: 'not_started', submission_id: null, exam_id: null, submitted_at: null, late: false,
  ai_score: null, grade: null, grade_source: null, attempts: 0, ...over,
});

test('numbers with a decimal comma', () => {
  expect(fmtNum(7.5)).toBe('7,5');
  expect(fmtNum(78)).toBe('78');
  expect(fmtNum('81.25')).toBe('81,25');
  expect(fmtNum(null)).toBe('');
});

test('a cell says the state, the score of record else the AI one, and lateness', () => {
  expect(cellText(row({}))).toBe('Neînceput');
  expect(cellText(row({ state: 'ai_graded', ai_score: 78 }))).toBe('Notat de AI · 78');
  expect(cellText(row({ state: 'confirmed', ai_score: 78, grade: 80.5, late: true }))).toBe('Confirmat · 80,5 · întârziat');
});

test('pivot: current members first by name, assignments by deadline', () => {
  const t = pivot([
    row({ student_id: 's2', name: 'Ștefan Zaharia', assignment_id: 'a2', assignment_title: 'Tema 2', deadline: '2026-04-01T00:00:00Z' }),
    row({ student_id: 's3', name: 'Bogdan', active: false }),
    row({}),
  ]);
  expect(t.students.map((s) => s.name)).toEqual(['Ana Ionescu', 'Ștefan Zaharia', 'Bogdan']);
  expect(t.assignments.map((a) => a.title)).toEqual(['Tema 1', 'Tema 2']);
  expect(t.cell('s1', 'a1')?.state).toBe('not_started');
  expect(t.cell('s1', 'a2')).toBeUndefined();
});

test('CSV: BOM, semicolons, CRLF, decimal commas, quoted fields, diacritics intact', () => {
  const csv = gradebookCsv([
    row({ state: 'confirmed', ai_score: 78, grade: 80.5, assignment_title: 'Speța „vecinul”; partea I' }),
    row({ student_id: 's2', username: 'stefan', name: 'Ștefan Țăranu', state: 'ai_graded', ai_score: 64, late: true, assignment_title: 'Speța „vecinul”; partea I' }),
  ]);
  expect(csv.startsWith('\uFEFF')).toBe(true);
  const lines = csv.slice(1).split('\r\n');
  expect(lines[0]).toBe('Nume;Utilizator;Membru activ;"Speța „vecinul”; partea I – notă";"Speța „vecinul”; partea I – stare"');
  expect(lines[1]).toBe('Ana Ionescu;ana;da;80,5;Confirmat');
  expect(lines[2]).toBe('Ștefan Țăranu;stefan;da;64;Notat de AI, întârziat');
  expect(lines[3]).toBe('');
});
