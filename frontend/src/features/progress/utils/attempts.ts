// My Progress: attempts grouped by case (issue 15 §4). Pure, unit-tested.

export type Attempt = {
  id: string;
  case_id: string;
  case_code: string;
  case_title: string;
  score: string | null;
  score_value: number | null;
  feedback_text: string | null;
  submitted_at: string;
  difficulty_rating: number;
  status: string;
  // What became of it (submissions_with_details.state): graded, grading, blocked, failed, pending.
  state: string;
};

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
