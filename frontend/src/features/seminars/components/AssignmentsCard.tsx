import { useQuery } from '../../../lib/query';
import { strictnessLabel } from '../../../lib/score';
import { fetchStats, type Assignment } from '../api/seminars';
import { fmtNum } from '../utils/gradebook';
import { fmtWhen } from '../utils/time';
import { NewAssignmentForm } from './NewAssignmentForm';

// The group's assignments, each with its statistics on demand, and the form for a new one.
export function AssignmentsCard({ groupId, assignments, onCreated }: { groupId: string; assignments: Assignment[]; onCreated: () => void }) {
  return (
    <section className="card" aria-labelledby="assignments-title">
      <h2 id="assignments-title">Teme</h2>
      {assignments.length === 0 && <p className="muted">Nicio temă încă.</p>}
      <ul className="list">
        {assignments.map((a) => (
          <li key={a.id} data-testid="assignment">
            <strong>{a.title}</strong> <span className="badge">{a.kind === 'case' ? 'Speță' : 'Grile'}</span>
            <div className="muted assignment-facts">
              Deschisă de la {fmtWhen(a.opens_at)} · termen {fmtWhen(a.deadline)} · {a.kind === 'case' ? strictnessLabel(a.strictness) : `${a.grile_minutes} minute`}
              {a.kind === 'case' && ` · tutore ${a.tutor_allowed ? 'permis' : 'interzis'}`} · {a.revisions_allowed === 0 ? 'fără revizuiri' : a.revisions_allowed === 1 ? 'o revizuire' : `${a.revisions_allowed} revizuiri`} ·{' '}
              {a.late_policy === 'accept' ? 'întârzierile se primesc și se marchează' : 'întârzierile nu se primesc'}
            </div>
            <details className="stats-details">
              <summary>Statistici</summary>
              <StatsView assignmentId={a.id} />
            </details>
          </li>
        ))}
      </ul>
      <details className="new-assignment">
        <summary>Temă nouă</summary>
        <NewAssignmentForm groupId={groupId} onCreated={onCreated} />
      </details>
    </section>
  );
}

// Distribution of scores by tens, median and mean, and the weakest criteria across the group.
function StatsView({ assignmentId }: { assignmentId: string }) {
  const q = useQuery(['seminar-stats', assignmentId], () => fetchStats(assignmentId), { gcTime: 0 });
  const s = q.data;
  if (q.status === 'error') return <p className="error">{(q.error as Error).message}</p>;
  if (!s) return <p className="muted" role="status">Se încarcă...</p>;
  const max = Math.max(1, ...s.distribution.map((d) => d.count));
  return (
    <div className="stats" data-testid="stats">
      <p>
        Predate: <strong>{s.handed_in}</strong> din {s.members} · notate: <strong>{s.graded}</strong> · mediana: <strong>{s.median == null ? '—' : fmtNum(s.median)}</strong> · media:{' '}
        <strong>{s.mean == null ? '—' : fmtNum(s.mean)}</strong>
      </p>
      <ul className="distribution" aria-label="Distribuția notelor">
        {s.distribution.map((d) => (
          <li key={d.from}>
            <span className="range">{d.from}–{d.to}</span>
            <span className="bar" aria-hidden><span style={{ width: `${(100 * d.count) / max}%` }} /></span>
            <span className="count-value">{d.count}</span>
          </li>
        ))}
      </ul>
      {s.weakest.length > 0 && (
        <>
          <h4>Criteriile cele mai slabe</h4>
          <ol className="weakest">
            {s.weakest.map((w) => (
              <li key={w.id}>{w.id} {w.label}: {fmtNum(w.average_pct)}%</li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
