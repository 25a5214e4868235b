import { expect, test } from 'vitest';
import { gradeChanges, parseScore } from './grading';

const rows = [
  { code: '1.1', label: 'Citirea', score: 4, max: 5 },
  { code: '2.1', label: 'Introducere', score: 8, max: 10 },
  { code: '2.2.1', label: 'Premisa majoră', score: 15, max: 20 },
];

test('scores read with a comma or a point', () => {
  expect(parseScore('7,5')).toBe(7.5);
  expect(parseScore(' 7.5 ')).toBe(7.5);
  expect(parseScore('')).toBeNull();
  expect(parseScore('x')).toBeNull();
});

test('only changed or commented criteria are sent', () => {
  const edits = {
    '1.1': { score: '4', comment: '' },
    '2.1': { score: '6,5', comment: '' },
    '2.2.1': { score: '15', comment: 'Lipsește art. 1357.' },
  };
  expect(gradeChanges(rows, edits)).toEqual([
    { id: '2.1', score: 6.5 },
    { id: '2.2.1', score: 15, comment: 'Lipsește art. 1357.' },
  ]);
});
