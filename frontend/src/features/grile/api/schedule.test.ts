import { describe, expect, it } from 'vitest';
import { nextCards } from './schedule';

const DAY = 86_400_000;

describe('grile scheduling (ts-fsrs)', () => {
  it('brings a wrong answer back sooner than a right one, in whole days', () => {
    const now = new Date('2026-11-24T10:00:00Z');
    const { ifWrong, ifRight } = nextCards(null, now);
    const wrong = new Date(ifWrong.due).getTime() - now.getTime();
    const right = new Date(ifRight.due).getTime() - now.getTime();
    expect(wrong).toBe(DAY);
    expect(right).toBeGreaterThan(wrong);
    expect(ifWrong.last_review).toBe(now.toISOString());
    expect(ifRight.reps).toBe(1);
  });

  it('spaces a question answered rightly again further apart, and a lapse resets it', () => {
    const t0 = new Date('2026-11-24T10:00:00Z');
    const first = nextCards(null, t0).ifRight;
    const t1 = new Date(first.due);
    const second = nextCards(first, t1);
    const gap1 = t1.getTime() - t0.getTime();
    const gap2 = new Date(second.ifRight.due).getTime() - t1.getTime();
    expect(gap2).toBeGreaterThan(gap1);
    expect(new Date(second.ifWrong.due).getTime() - t1.getTime()).toBeLessThan(gap2);
    expect(second.ifWrong.lapses).toBe(1);
  });
});
