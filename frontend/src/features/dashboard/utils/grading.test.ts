import { describe, expect, test } from 'vitest';
import { breakdownRows, criterionDeltas, criterionShares, scoreSeries, signed, strictnessLabel } from '../../../lib/score';
import { insertedLength, SignalRecorder } from './signals';

const ten = (scores: number[]) =>
  ['1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '2.1', '2.2.1', '2.2.2', '2.2.3'].map((id, i) => ({
    id,
    label: 'x',
    score: scores[i],
    max: [5, 8, 5, 7, 10, 5, 10, 20, 15, 15][i],
    comment: `c${i}`,
  }));

describe('score breakdown', () => {
  test('the array shape (issue 15) and the earlier object shape read alike', () => {
    const rows = breakdownRows(ten([5, 7, 4, 6, 8, 4, 8, 17, 10, 9]));
    expect(rows.map((r) => r.score)).toEqual([5, 7, 4, 6, 8, 4, 8, 17, 10, 9]);
    expect(rows[7]).toMatchObject({ code: '2.2.1', label: 'Premisa majoră', max: 20, comment: 'c7' });
    const old = breakdownRows({ criteria: { '2.2.1': { score: 17, max: 20 } } });
    expect(old[7].score).toBe(17);
    expect(old[0].score).toBeNull();
    // Out of range or a wrong maximum: no score.
    expect(breakdownRows([{ id: '1.1', score: 6, max: 5 }, { id: '1.2', score: 3, max: 10 }]).slice(0, 2).map((r) => r.score)).toEqual([null, null]);
    expect(breakdownRows('nonsense').every((r) => r.score === null)).toBe(true);
  });
  test('strictness labels follow the solution panel', () => {
    expect(strictnessLabel(1)).toBe('Exigență Ușor (1)');
    expect(strictnessLabel(3)).toBe('Exigență Mediu (3)');
    expect(strictnessLabel(5)).toBe('Exigență Greu (5)');
    expect(strictnessLabel(null)).toBe('Exigență necunoscută');
  });
  test('per-criterion change between two attempts, with a real minus sign', () => {
    const prev = breakdownRows(ten([5, 7, 4, 6, 8, 4, 8, 14, 10, 10]));
    const next = breakdownRows(ten([5, 7, 4, 6, 8, 4, 8, 17, 10, 9]));
    const d = criterionDeltas(prev, next).filter((x) => x.delta !== 0);
    expect(d).toEqual([
      { code: '2.2.1', label: 'Premisa majoră', delta: 3 },
      { code: '2.2.3', label: 'Concluzie', delta: -1 },
    ]);
    expect([signed(3), signed(-1), signed(0)]).toEqual(['+3', '−1', '±0']);
    // A criterion missing on either side is not compared.
    expect(criterionDeltas(breakdownRows(null), next)).toEqual([]);
  });
  test('criterion view: average share, weakest first, series oldest first', () => {
    const s = criterionShares([
      { submitted_at: '2026-03-02T10:00:00Z', score_breakdown: ten([5, 8, 5, 7, 10, 5, 10, 10, 15, 15]) },
      { submitted_at: '2026-03-01T10:00:00Z', score_breakdown: ten([5, 8, 5, 7, 10, 5, 10, 0, 15, 0]) },
      { submitted_at: '2026-03-03T10:00:00Z', score_breakdown: null },
    ]);
    expect(s[0]).toMatchObject({ code: '2.2.1', share: 0.25, count: 2 });
    expect(s[0].series).toEqual([
      { at: '2026-03-01T10:00:00Z', share: 0 },
      { at: '2026-03-02T10:00:00Z', share: 0.5 },
    ]);
    expect(s[1]).toMatchObject({ code: '2.2.3', share: 0.5 });
    expect(s[2].share).toBe(1);
    expect(s).toHaveLength(10);
  });
  test('the score series keeps the strictness of each point', () => {
    expect(scoreSeries([{ submitted_at: '2026-01-01', score_value: 70, case_code: 'A', difficulty_rating: 5 }])[0].level).toBe(5);
  });
});

describe('process signals', () => {
  test('inserted length of an edit', () => {
    expect(insertedLength('', 'abc')).toBe(3);
    expect(insertedLength('abc', 'abXc')).toBe(1);
    expect(insertedLength('abc', 'ab')).toBe(0);
    expect(insertedLength('a very long', 'a NEW long')).toBe(3); // a selection replaced
  });
  test('typed and pasted characters, paste events, largest paste, time to submit', () => {
    let now = 1000;
    const r = new SignalRecorder(() => now);
    expect(r.snapshot()).toEqual({ chars_typed: 0, chars_pasted: 0, paste_events: 0, largest_paste: 0, ms_to_submit: null });
    r.change('', 'a');
    r.change('a', 'ab');
    now = 5000;
    r.paste();
    r.change('ab', 'ab' + 'x'.repeat(40));
    r.paste();
    r.change('ab' + 'x'.repeat(40), 'ab' + 'x'.repeat(40) + 'yyyy');
    r.change('ab' + 'x'.repeat(40) + 'yyyy', 'ab' + 'x'.repeat(40) + 'yyy'); // a deletion counts nothing
    r.change('ab' + 'x'.repeat(40) + 'yyy', 'ab' + 'x'.repeat(40) + 'yyyz');
    now = 61_000;
    expect(r.snapshot()).toEqual({ chars_typed: 3, chars_pasted: 44, paste_events: 2, largest_paste: 40, ms_to_submit: 60_000 });
    r.reset();
    expect(r.snapshot().chars_pasted).toBe(0);
  });
});
