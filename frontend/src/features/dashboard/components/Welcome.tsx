import type { ReactNode } from 'react';
import { useUserId } from '../../../lib/auth/store';
import { useQuery } from '../../../lib/query';
import { stripCasePrefix } from '../../../lib/validation';
import { ArrowRightIcon, BookIcon, ChartIcon, PlayIcon } from '../../../components/ui/icons';
import { LAST_CASE_KEY, levelColor, loadMyWork, type CaseRow } from '../api/cases';
import type { TreeData } from './CaseTree';

// The dashboard before a case is picked: the spec's "Selectează un caz", then where to go
// next — the case last worked on, a first easy case, and the progress per domain.
export function Welcome({ tree, onPick, teme }: { tree: TreeData | null; onPick: (c: CaseRow) => void; teme?: ReactNode }) {
  const userId = useUserId();
  // Not loaded (or failed): no last case from the server and nothing counted as done.
  const work = useQuery(userId ? ['my-work', userId] : null, () => loadMyWork(userId!)).data;
  const cases = tree?.cases ?? [];
  const stored = typeof localStorage !== 'undefined' ? localStorage.getItem(LAST_CASE_KEY) : null;
  const last = cases.find((c) => c.id === stored) ?? cases.find((c) => c.id === work?.lastCase) ?? null;
  const done = work?.completed ?? new Set<string>();
  const easy = cases.find((c) => levelColor(c.level) === 'green' && !done.has(c.id) && c.id !== last?.id) ?? null;
  const domains = (tree?.domains ?? [])
    .map((d) => {
      const inDomain = cases.filter((c) => c.domain === d.code);
      return { code: d.code, name: d.name, total: inDomain.length, done: inDomain.filter((c) => done.has(c.id)).length };
    })
    .filter((d) => d.total > 0);
  return (
    <section className="welcome" aria-labelledby="welcome-title">
      <div>
        <h1 id="welcome-title">Bun venit pe Casus</h1>
        <p className="empty">Selectează un caz</p>
        <p className="lead">din lista din stânga sau începe cu una dintre sugestiile de mai jos.</p>
      </div>
      {teme}
      <div className="welcome-grid">
        {last && (
          <article className="card">
            <h2><PlayIcon /> Continuă de unde ai rămas</h2>
            <p><span className="code">{last.case_code}</span> {stripCasePrefix(last.title)}</p>
            <button className="primary" onClick={() => onPick(last)}>
              Continuă <ArrowRightIcon />
            </button>
          </article>
        )}
        {easy && (
          <article className="card">
            <h2><BookIcon /> Un prim caz ușor</h2>
            <p><span className="code">{easy.case_code}</span> {stripCasePrefix(easy.title)}</p>
            <button className={last ? undefined : 'primary'} onClick={() => onPick(easy)}>
              Deschide cazul <ArrowRightIcon />
            </button>
          </article>
        )}
        {domains.length > 0 && (
          <article className="card">
            <h2><ChartIcon /> Progres pe domenii</h2>
            <ul className="domain-progress">
              {domains.map((d) => (
                <li key={d.code}>
                  <div className="row-head">
                    <span>{d.name}</span>
                    <span className="muted">{d.done} din {d.total} rezolvate</span>
                  </div>
                  <div className="meter" role="progressbar" aria-label={`Progres ${d.name}`} aria-valuemin={0} aria-valuemax={d.total} aria-valuenow={d.done}>
                    <span style={{ width: `${(100 * d.done) / d.total}%` }} />
                  </div>
                </li>
              ))}
            </ul>
          </article>
        )}
      </div>
    </section>
  );
}
