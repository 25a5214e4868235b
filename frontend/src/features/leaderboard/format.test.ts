import { describe, expect, test } from 'vitest';
import { pointsLabel } from './format';
import { toBoardRow } from './api/leaderboard';

describe('pointsLabel', () => {
  test.each([
    [0, '0 puncte'], [1, '1 punct'], [2, '2 puncte'], [19, '19 puncte'], [20, '20 de puncte'], [30, '30 de puncte'],
    [100, '100 de puncte'], [101, '101 puncte'], [119, '119 puncte'], [120, '120 de puncte'],
  ])('%i → %s', (n, want) => expect(pointsLabel(n)).toBe(want));
});

describe('toBoardRow', () => {
  test('keeps the five fields', () => {
    expect(toBoardRow({ rank: 3, username: 'ana', university_code: null, points: 10, is_self: false }))
      .toEqual({ rank: 3, username: 'ana', university_code: null, points: 10, is_self: false });
  });
  test('refuses a row of another shape', () => {
    expect(() => toBoardRow({ rank: '3', username: 'ana', university_code: 'UB', points: 10, is_self: false })).toThrow();
    expect(() => toBoardRow({ username: 'ana', university_code: 'UB', points: 10, is_self: false })).toThrow();
  });
});
