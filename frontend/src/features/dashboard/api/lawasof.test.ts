import { describe, expect, test } from 'vitest';
import { lawAsOfLabel } from './cases';

describe('law as of', () => {
  test('a date reads in Romanian, without a leading zero', () => {
    expect(lawAsOfLabel('2026-11-01')).toBe('Legislație la data de 1 noiembrie 2026');
    expect(lawAsOfLabel('2027-03-15')).toBe('Legislație la data de 15 martie 2027');
  });
  test('no date or a malformed one shows nothing', () => {
    expect(lawAsOfLabel(null)).toBeNull();
    expect(lawAsOfLabel('')).toBeNull();
    expect(lawAsOfLabel('2026-13-01')).toBeNull();
  });
});
