import { lazy, Suspense, useEffect, useRef } from 'react';
import { useQuery } from '../../../lib/query';
import { Failed } from '../../../components/ui/status';
import { aiEnabled } from '../../../lib/ai';
import { readVisitorDraft } from '../utils/visitorDraft';
import { SOLVE_EVENT } from '../utils/solve';
import { lawAsOfLabel, levelColor, loadCase, rememberCase } from '../api/cases';
import { usePresenceCount } from '../hooks/usePresenceCount';

// The solution panel (grading, charts, appeals) loads with the first opened case, not with the page.
const SolutionPanel = lazy(() => import('./Evaluation').then((m) => ({ default: m.SolutionPanel })));

// One case: its statement, articles, question, steps and hints, and "Rezolvă speța!".
export function CaseView({ id, onArticle }: { id: string; onArticle: (ref: string, number: string) => void }) {
  const q = useQuery(['case', id], () => loadCase(id));
  const c = q.data;
  const solve = useRef<HTMLDetailsElement>(null);
  useEffect(() => rememberCase(id), [id]);
  useEffect(() => {
    const open = () => {
      const d = solve.current;
      if (!d) return;
      d.open = true;
      d.scrollIntoView({ block: 'start' });
      d.querySelector('textarea')?.focus({ preventScroll: true });
    };
    window.addEventListener(SOLVE_EVENT, open);
    return () => window.removeEventListener(SOLVE_EVENT, open);
  }, []);
  if (c === null || (c === undefined && q.status === 'error')) return <Failed message="Cazul nu a putut fi încărcat." onRetry={() => void q.refetch()} />;
  if (c === undefined) return <div className="skeleton tall" aria-busy="true" />;
  return (
    <article className="case">
      <header>
        <span className="code">{c.case_code}</span>
        <h1>{c.title}</h1>
        <span className={`badge level ${levelColor(c.level)}`}>{c.level}</span>
        {c.verified ? <span className="badge verified">Verificat</span> : <span className="badge">Neverificat</span>}
        <Colleagues caseId={c.id} />
      </header>
      <details className="solve" ref={solve} open={readVisitorDraft()?.caseId === c.id || undefined}>
        <summary>Rezolvă speța!</summary>
        <Suspense fallback={<div className="skeleton tall" aria-busy="true" />}>
          <SolutionPanel key={c.id} caseId={c.id} aiOn={aiEnabled()} />
        </Suspense>
      </details>
      {lawAsOfLabel(c.law_as_of) && <p className="law-as-of">{lawAsOfLabel(c.law_as_of)}</p>}
      <section className="callout">
        <h2>Problema juridică</h2>
        <p>{c.legal_problem}</p>
      </section>
      <h2>Articole relevante</h2>
      <div className="articles">
        {c.articles.map((a) => (
          <button key={a.article_reference} className="badge article" onClick={() => onArticle(a.article_reference, a.article_number)}>
            {a.article_reference}
          </button>
        ))}
      </div>
      <h2>Speta (Cazul)</h2>
      {c.case_description.split('\n').filter(Boolean).map((p, i) => <p key={i}>{p}</p>)}
      <section className="callout question">
        <h2>Întrebare</h2>
        <p>{c.question}</p>
      </section>
      <details>
        <summary>Pași de analiză așteptați</summary>
        <ol>{c.steps.map((s) => <li key={s.step_number}>{s.step_description}</li>)}</ol>
      </details>
      <details>
        <summary>Indicii</summary>
        <ul>{c.hints.map((h) => <li key={h.hint_number}>{h.hint_text}</li>)}</ul>
      </details>
    </article>
  );
}

// How many colleagues study this case right now (realtime presence, no names: the key is
// opaque, see presenceKey).
function Colleagues({ caseId }: { caseId: string }) {
  const n = usePresenceCount(`case:${caseId}`);
  if (n === 0) return null;
  return <span className="colleagues" aria-live="polite">{n === 1 ? '1 coleg studiază acum acest caz' : `${n} colegi studiază acum acest caz`}</span>;
}
