import { ShareSparkline } from '../../../components/charts/charts';
import { criterionShares } from '../../../lib/score';

export type GradedWork = { submitted_at: string; score_breakdown: unknown; difficulty_rating: number };

// Across all graded work: the average share of each rubric item, weakest first, and its
// course over time (one point per graded attempt, with the strictness it was graded at).
export function CriteriaOverview({ graded }: { graded: GradedWork[] }) {
  const levels = new Map(graded.map((g) => [g.submitted_at, g.difficulty_rating]));
  const shares = criterionShares(graded);
  return (
    <section className="card" aria-labelledby="criteria-overview-title">
      <h2 id="criteria-overview-title">Punctaj pe criterii</h2>
      {shares.length === 0 ? (
        <p className="muted">Nu ai soluții evaluate pe criterii încă</p>
      ) : (
        <>
          <p className="muted">Media fiecărui criteriu din punctajul său maxim, în toate soluțiile evaluate; cele mai slabe primele.</p>
          <ol className="criteria-overview">
            {shares.map((c) => (
              <li key={c.code} data-testid="criterion-share">
                <span className="label">{c.code} {c.label}</span>
                <span className="share-bar" aria-hidden="true"><span style={{ width: `${Math.round(c.share * 100)}%` }} /></span>
                <span className="value">{Math.round(c.share * 100)}%</span>
                <ShareSparkline label={`${c.code} ${c.label}`} points={c.series.map((p) => ({ ...p, level: levels.get(p.at) ?? null }))} />
                <span className="muted count">{c.count === 1 ? '1 evaluare' : `${c.count} evaluări`}</span>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
