import { gradeBand } from '../../lib/validation';

// The grading rubric (section 9): intellectual operations 40, drafting 60.
export const RUBRIC = [
  { code: '1.1', max: 5, label: 'Citirea și înțelegerea enunțului' },
  { code: '1.2', max: 8, label: 'Identificarea elementelor esențiale' },
  { code: '1.3', max: 5, label: 'Ordonarea cronologică' },
  { code: '1.4', max: 7, label: 'Rezumatul faptelor esențiale' },
  { code: '1.5', max: 10, label: 'Calificarea juridică' },
  { code: '1.6', max: 5, label: 'Problema juridică' },
  { code: '2.1', max: 10, label: 'Introducere' },
  { code: '2.2.1', max: 20, label: 'Premisa majoră' },
  { code: '2.2.2', max: 15, label: 'Premisa minoră' },
  { code: '2.2.3', max: 15, label: 'Concluzie' },
] as const;

export type CriterionRow = { code: string; label: string; score: number | null; max: number };

// The stored breakdown ({criteria: {code: {score, max}}}) as rows in rubric order; a
// criterion the grader did not report (or reported out of range) has no score.
export function breakdownRows(breakdown: unknown): CriterionRow[] {
  const criteria = (breakdown && typeof breakdown === 'object' && (breakdown as { criteria?: unknown }).criteria) || {};
  return RUBRIC.map((r) => {
    const c = (criteria as Record<string, { score?: unknown; max?: unknown }>)[r.code];
    const score = c && typeof c.score === 'number' && c.score >= 0 && c.score <= r.max && c.max === r.max ? c.score : null;
    return { code: r.code, label: r.label, score, max: r.max };
  });
}

// "78/100 · Bine" for a graded submission, "În curs" otherwise.
export function scoreLabel(score: string | null | undefined, value: number | null | undefined): string {
  if (!score || value == null || !Number.isFinite(Number(value))) return 'În curs';
  return `${score} · ${gradeBand(Number(value))}`;
}

// The total the grader wrote ("PUNCTAJ TOTAL: N/100"), or null.
export function parseTotal(text: string): number | null {
  const all = [...text.matchAll(/PUNCTAJ TOTAL:\s*(\d{1,3})\s*\/\s*100/g)];
  if (all.length !== 1) return null;
  const n = Number(all[0][1]);
  return n <= 100 ? n : null;
}

export type ScorePoint = { at: string; value: number; label: string };

// Scored submissions, oldest first, for the chart over time.
export function scoreSeries(subs: { submitted_at: string; score_value: number | null; case_code: string }[]): ScorePoint[] {
  return subs
    .filter((s) => s.score_value != null && Number.isFinite(Number(s.score_value)))
    .map((s) => ({ at: s.submitted_at, value: Number(s.score_value), label: s.case_code }))
    .sort((a, b) => a.at.localeCompare(b.at));
}
