import type { Category, Citation } from '../api/grile';
import { nextReviewLabel } from '../api/schedule';
import type { usePractice } from '../hooks/usePractice';
import { useAnswerKeys } from '../hooks/useKeys';
import { QuestionView } from './QuestionView';

// One question at a time; after the answer the key, the explanations and the next review.
export function PracticeSession({ p, categories, onArticle, onDone, now }: {
  p: ReturnType<typeof usePractice>;
  categories: Category[];
  onArticle: (c: Citation) => void;
  onDone: () => void;
  now: () => Date;
}) {
  const { state: s, current } = p;
  useAnswerKeys({ toggle: p.toggle, enter: () => (s.phase === 'revealed' ? p.next() : void p.submit()) }, s.phase === 'question' || s.phase === 'revealed');
  if (s.phase === 'done') {
    return (
      <section className="card grile-summary" aria-live="polite">
        <h2>Sesiune încheiată</h2>
        {s.questions.length > 0 && <p className="big">Ai răspuns corect la {s.right} din {s.questions.length} grile.</p>}
        {s.error && <p className="muted">{s.error}</p>}
        <button className="primary" onClick={onDone}>Sesiune nouă</button>
      </section>
    );
  }
  if (!current) return null;
  const cat = categories.find((c) => c.id === current.category_id)?.name;
  const r = s.revealed;
  return (
    <section className="card grile-session">
      <QuestionView
        q={current}
        categoryName={cat}
        header={<span className="grila-count">Grila {s.index + 1} din {s.questions.length}{current.is_due ? ' · de recapitulat' : ''}</span>}
        chosen={r ? r.chosen : s.selected}
        onToggle={p.toggle}
        revealed={r}
        onArticle={onArticle}
      />
      {r && (
        <p className={`grila-verdict ${r.is_correct ? 'right' : 'wrong'}`} role="status">
          {r.is_correct ? 'Răspuns corect' : `Răspuns greșit — corect: ${r.correct.join(', ')}`}
          <span className="muted"> · revine {nextReviewLabel(r.due, now())}</span>
        </p>
      )}
      {s.error && <p className="error" role="alert">{s.error}</p>}
      <div className="row grile-actions">
        <span className="muted keys-help">1/2/3 sau a/b/c aleg variantele · Enter {r ? 'continuă' : 'verifică'}</span>
        {r ? (
          <button className="primary" onClick={p.next}>{s.index + 1 < s.questions.length ? 'Următoarea' : 'Vezi rezultatul'}</button>
        ) : (
          <button className="primary" onClick={() => void p.submit()} disabled={s.busy || !s.selected.length}>Verifică</button>
        )}
      </div>
    </section>
  );
}
