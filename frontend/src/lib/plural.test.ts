import { expect, test } from 'vitest';
import { countOf } from './plural';

test('Romanian number agreement', () => {
  const c = (n: number) => countOf(n, 'cerere', 'cereri');
  expect([0, 1, 2, 19, 20, 21, 100, 101, 119, 120].map(c)).toEqual([
    '0 cereri', '1 cerere', '2 cereri', '19 cereri', '20 de cereri', '21 de cereri', '100 de cereri', '101 cereri', '119 cereri', '120 de cereri',
  ]);
});
