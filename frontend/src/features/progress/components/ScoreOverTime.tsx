import { ScoreChart } from '../../../components/charts/charts';
import { scoreSeries } from '../../../lib/score';

// My Progress: the graded submissions' scores over time.
export function ScoreOverTime({ subs }: { subs: { submitted_at: string; score_value: number | null; case_code: string }[] }) {
  const points = scoreSeries(subs);
  return (
    <section className="card" aria-label="Evoluția punctajelor">
      <h2>Evoluția punctajelor</h2>
      {points.length === 0 ? (
        <p className="muted">Nu ai soluții evaluate încă</p>
      ) : (
        <>
          <ScoreChart points={points} />
          <p className="muted score-legend">Litera de deasupra fiecărui punct este exigența corectorului: U = Ușor, M = Mediu, G = Greu.</p>
        </>
      )}
    </section>
  );
}
