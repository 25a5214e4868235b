// My Progress: attempts grouped by case (issue 15 §4). Pure, unit-tested.

import type { Views } from '../../../types/database';
import type { Known } from '../../../types/rows';

// One row of submissions_with_details; state is what became of it: graded, grading,
// blocked, failed, pending. The view guarantees all but the grade columns.
type Always = 'id' | 'case_id' | 'case_code' | 'case_title' | 'submitted_at' | 'difficulty_rating' | 'status' | 'state';
export type Attempt = Known<Views<'submissions_with_details'>, Always | 'score' | 'score_value' | 'feedback_text', Always>;

// The label of an attempt that has no grade: a submission the AI check blocked, or whose
// check or grading failed upstream, is named as such instead of "În curs" forever.
export function attemptLabel(a: Pick<Attempt, 'score' | 'state'>): string {
  if (a.score) return a.score;
  if (a.state === 'blocked') return 'Blocată de verificarea AI';
  if (a.state === 'failed') return 'Evaluare eșuată — reîncearcă';
  return 'În curs';
}

// The dashboard opened on one case (Dashboard reads ?caz=).
export const caseLink = (caseId: string) => `/dashboard?caz=${encodeURIComponent(caseId)}`;

export type CaseAttempts<A extends Attempt = Attempt> = { case_id: string; case_code: string; case_title: string; latest: A; earlier: A[] };

// One group per case, the case with the most recent attempt first; inside a group the
// latest attempt, then the earlier ones newest first.
export function groupByCase<A extends Attempt>(subs: A[]): CaseAttempts<A>[] {
  const sorted = [...subs].sort((a, b) => b.submitted_at.localeCompare(a.submitted_at));
  const groups = new Map<string, A[]>();
  for (const s of sorted) groups.set(s.case_id, [...(groups.get(s.case_id) ?? []), s]);
  return [...groups.values()].map(([latest, ...earlier]) => ({ case_id: latest.case_id, case_code: latest.case_code, case_title: latest.case_title, latest, earlier }));
}
