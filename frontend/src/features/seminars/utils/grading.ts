import type { CriterionRow } from '../../../lib/score';

// What the assistant typed for one criterion: the score as written ("7,5" or "7.5") and a comment.
export type Edit = { score: string; comment: string };

export const parseScore = (s: string): number | null => {
  const t = s.trim().replace(',', '.');
  if (!t) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
};

// The criteria seminar_set_grade receives: those whose score differs from the AI's or that
// carry a comment (the others keep the AI's score on the server).
export function gradeChanges(rows: CriterionRow[], edits: Record<string, Edit>): { id: string; score: number; comment?: string }[] {
  return rows.flatMap((r) => {
    const e = edits[r.code];
    if (!e) return [];
    const score = parseScore(e.score);
    const comment = e.comment.trim();
    if (score == null) return [];
    if (score === r.score && !comment) return [];
    return [{ id: r.code, score, ...(comment ? { comment } : {}) }];
  });
}
