import type { ReactNode } from 'react';
import { LETTERS, type Citation, type Letter, type Question } from '../api/grile';
import { ArticleBadges } from './ArticleBadges';

export type Key = { correct: Letter[]; explanations: string[]; citations: Citation[][] };

const levelClass: Record<string, string> = { 'Ușor': 'green', Mediu: 'yellow', Dificil: 'red' };

// A grilă: statement and the three options as toggles. With `revealed`, each option shows
// whether it was right, the student's choice and its explanation with article badges.
export function QuestionView({ q, header, chosen, onToggle, revealed, onArticle, categoryName }: {
  q: Pick<Question, 'code' | 'level' | 'statement' | 'options' | 'subcategory'>;
  header?: ReactNode;
  chosen: Letter[];
  onToggle?: (l: Letter) => void;
  revealed?: Key | null;
  onArticle: (c: Citation) => void;
  categoryName?: string;
}) {
  return (
    <article className="grila" data-testid="grila" aria-label={`Grila ${q.code}`}>
      <div className="grila-head">
        {header}
        <span className="code">{q.code}</span>
        <span className={`badge level ${levelClass[q.level] ?? ''}`}>{q.level}</span>
        {categoryName && <span className="muted grila-cat">{categoryName} · {q.subcategory}</span>}
      </div>
      <p className="grila-statement" data-testid="statement">{q.statement}</p>
      {/* The group is a wrapper: on the <ol> itself the role would hide the list from its items. */}
      <div role="group" aria-label="Variante">
        <ol className="grila-options">
          {LETTERS.map((l, i) => {
            const on = chosen.includes(l);
            const right = revealed?.correct.includes(l);
            const cls = ['grila-option', on ? 'chosen' : '', revealed ? (right ? 'right' : 'wrong') : ''].join(' ').trim();
            return (
              <li key={l}>
                <button
                  type="button"
                  className={cls}
                  role="checkbox"
                  aria-checked={on}
                  aria-disabled={!onToggle || !!revealed}
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => onToggle && !revealed && onToggle(l)}
                  data-testid={`option-${l}`}
                >
                  <span className="letter" aria-hidden>{l})</span> <span className="text">{q.options[i]}</span>
                  <span className="keyhint" aria-hidden>{i + 1}</span>
                </button>
                {revealed && (
                  <div className={`explanation ${right ? 'right' : 'wrong'}`} data-testid={`explanation-${l}`}>
                    <strong>{right ? 'Corectă' : 'Greșită'}{on ? ' · ai ales-o' : ''}</strong>
                    <p>{revealed.explanations[i]}</p>
                    <ArticleBadges citations={revealed.citations[i] ?? []} onArticle={onArticle} />
                  </div>
                )}
              </li>
            );
          })}
        </ol>
      </div>
    </article>
  );
}
