import { describe, expect, test } from 'vitest';
import { duration } from './Appeals';

describe('appeal queue', () => {
  test('durations as moderators read them', () => {
    expect(duration(null)).toBe('—');
    expect(duration(42_000)).toBe('42 s');
    expect(duration(245_000)).toBe('4 min 05 s');
    expect(duration(3_900_000)).toBe('1 h 05 min');
  });
});
