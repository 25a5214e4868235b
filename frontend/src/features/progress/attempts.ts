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
};

export type CaseAttempts<A extends Attempt = Attempt> = { case_id: string; case_code: string; case_title: string; latest: A; earlier: A[] };

// One group per case, the case with the most recent attempt first; inside a group the
// latest attempt, then the earlier ones newest first.
export function groupByCase<A extends Attempt>(subs: A[]): CaseAttempts<A>[] {
  const sorted = [...subs].sort((a, b) => b.submitted_at.localeCompare(a.submitted_at));
  const groups = new Map<string, A[]>();
  for (const s of sorted) groups.set(s.case_id, [...(groups.get(s.case_id) ?? []), s]);
  return [...groups.values()].map(([latest, ...earlier]) => ({ case_id: latest.case_id, case_code: latest.case_code, case_title: latest.case_title, latest, earlier }));
}
