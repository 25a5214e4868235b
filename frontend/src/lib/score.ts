import { gradeBand } from './validation';

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

export type CriterionRow = { code: string; label: string; score: number | null; max: number; comment?: string };

type RawCriterion = { id?: unknown; code?: unknown; score?: unknown; max?: unknown; comment?: unknown };

// The stored breakdown as rows in rubric order. Two shapes are read: the current one, an
// array of {id, label, score, max, comment}, and the earlier {criteria: {code: {score,
// max}}}. A criterion the grader did not report (or reported out of range) has no score.
export function breakdownRows(breakdown: unknown): CriterionRow[] {
  const byCode = new Map<string, RawCriterion>();
  if (Array.isArray(breakdown)) {
    for (const c of breakdown as RawCriterion[]) {
      const code = c && typeof c === 'object' ? (c.id ?? c.code) : undefined;
      if (typeof code === 'string') byCode.set(code, c);
    }
  } else if (breakdown && typeof breakdown === 'object') {
    const criteria = (breakdown as { criteria?: unknown }).criteria;
    if (criteria && typeof criteria === 'object') for (const [k, v] of Object.entries(criteria)) byCode.set(k, v as RawCriterion);
  }
  return RUBRIC.map((r) => {
    const c = byCode.get(r.code);
    const score = c && typeof c.score === 'number' && c.score >= 0 && c.score <= r.max && c.max === r.max ? c.score : null;
    const comment = c && typeof c.comment === 'string' && c.comment.trim() ? c.comment.trim() : undefined;
    return { code: r.code, label: r.label, score, max: r.max, ...(comment ? { comment } : {}) };
  });
}

// The grader's strictness (difficulty_rating), as the solution panel names it.
export const STRICTNESS: Record<number, string> = { 1: 'Ușor', 3: 'Mediu', 5: 'Greu' };
export function strictnessLabel(level: number | null | undefined): string {
  const l = Number(level);
  return STRICTNESS[l] ? `Exigență ${STRICTNESS[l]} (${l})` : 'Exigență necunoscută';
}

export type CriterionDelta = { code: string; label: string; delta: number };

// What changed between two graded attempts: each criterion scored in both, and the total.
export function criterionDeltas(prev: CriterionRow[], next: CriterionRow[]): CriterionDelta[] {
  const before = new Map(prev.map((r) => [r.code, r.score]));
  return next.flatMap((r) => {
    const b = before.get(r.code);
    return r.score != null && b != null ? [{ code: r.code, label: r.label, delta: r.score - b }] : [];
  });
}

// "+3", "−1", "±0" (a real minus sign, as printed).
export const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${Math.abs(n)}` : '±0');

export type CriterionShare = { code: string; label: string; share: number; count: number; series: { at: string; share: number }[] };

// Across all graded work: each rubric item's average share of its maximum (0-1), weakest
// first, with its share per attempt over time (oldest first).
export function criterionShares(subs: { submitted_at: string; score_breakdown: unknown }[]): CriterionShare[] {
  const sorted = [...subs].sort((a, b) => a.submitted_at.localeCompare(b.submitted_at));
  const rows = sorted.map((s) => ({ at: s.submitted_at, rows: breakdownRows(s.score_breakdown) }));
  const out: CriterionShare[] = RUBRIC.map((r) => {
    const series = rows.flatMap(({ at, rows }) => {
      const c = rows.find((x) => x.code === r.code);
      return c && c.score != null ? [{ at, share: c.score / c.max }] : [];
    });
    const share = series.length ? series.reduce((a, p) => a + p.share, 0) / series.length : 0;
    return { code: r.code, label: r.label, share, count: series.length, series };
  }).filter((c) => c.count > 0);
  return out.sort((a, b) => a.share - b.share || RUBRIC.findIndex((r) => r.code === a.code) - RUBRIC.findIndex((r) => r.code === b.code));
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

export type ScorePoint = { at: string; value: number; label: string; level?: number | null };

// Scored submissions, oldest first, for the chart over time (with the strictness each was graded at).
export function scoreSeries(subs: { submitted_at: string; score_value: number | null; case_code: string; difficulty_rating?: number | null }[]): ScorePoint[] {
  return subs
    .filter((s) => s.score_value != null && Number.isFinite(Number(s.score_value)))
    .map((s) => ({ at: s.submitted_at, value: Number(s.score_value), label: s.case_code, level: s.difficulty_rating ?? null }))
    .sort((a, b) => a.at.localeCompare(b.at));
}

// The grader's overall verdict: from its "Calificativ:" line to the end ("Calificativ: Bine",
// then "Puncte forte / De îmbunătățit: …"), without the markdown marks a model may add; null
// when the feedback has none (an older grade, or only the scoring grid).
export function overallVerdict(feedback: string | null | undefined): string | null {
  if (!feedback) return null;
  const m = /^[ \t*#>_-]*Calificativ:/m.exec(feedback);
  if (!m) return null;
  const text = feedback
    .slice(m.index)
    .split('\n')
    .map((l) => l.replace(/^[ \t*#>_-]+/, '').replace(/\*\*/g, '').trim())
    .filter(Boolean)
    .join('\n');
  return text || null;
}
