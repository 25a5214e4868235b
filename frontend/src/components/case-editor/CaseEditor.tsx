import { ArrowDownIcon, ArrowUpIcon } from '../ui/icons';
import { useState, type ReactNode } from 'react';
import {
  addArticle,
  codeForWeek,
  DIFFICULTIES,
  draftDomain,
  moveItem,
  newItem,
  removeItem,
  SUBCATEGORY_MAX,
  WEEKS,
  weekLabel,
  type Difficulty,
  type Draft,
  type Item,
} from '../../lib/caseDraft';

type Props = { draft: Draft; onChange: (d: Draft) => void; articleExtra?: (reference: string) => ReactNode };

// Focus follows a moved or deleted entry, so keyboard users keep their place.
function focusLater(...selectors: string[]) {
  setTimeout(() => {
    for (const sel of selectors) {
      const el = document.querySelector(sel) as HTMLButtonElement | null;
      if (el && !el.disabled) return el.focus();
    }
  }, 0);
}

function ItemList({ kind, items, onChange }: { kind: 'step' | 'hint'; items: Item[]; onChange: (items: Item[]) => void }) {
  const noun = kind === 'step' ? 'Pasul' : 'Indiciul';
  const lower = kind === 'step' ? 'pasul' : 'indiciul';
  const move = (i: number, d: -1 | 1) => {
    const next = moveItem(items, i, d);
    onChange(next);
    const [same, other] = d < 0 ? ['up', 'down'] : ['down', 'up'];
    if (next !== items) focusLater(`[data-move="${items[i].id}:${same}"]`, `[data-move="${items[i].id}:${other}"]`);
  };
  return (
    <fieldset className="item-list">
      <legend>{kind === 'step' ? 'Pași de analiză' : 'Indicii'}</legend>
      <ol>
        {items.map((it, i) => (
          <li key={it.id}>
            <div className="field">
              <label htmlFor={`${kind}-${it.id}`}>{noun} {i + 1}</label>
              <textarea id={`${kind}-${it.id}`} rows={2} value={it.text} onChange={(e) => onChange(items.map((x) => (x.id === it.id ? { ...x, text: e.target.value } : x)))} />
            </div>
            <div className="item-actions">
              <button type="button" data-move={`${it.id}:up`} aria-label={`Mută ${lower} ${i + 1} în sus`} disabled={i === 0} onClick={() => move(i, -1)}><ArrowUpIcon /></button>
              <button type="button" data-move={`${it.id}:down`} aria-label={`Mută ${lower} ${i + 1} în jos`} disabled={i === items.length - 1} onClick={() => move(i, 1)}><ArrowDownIcon /></button>
              <button
                type="button"
                aria-label={`Șterge ${lower} ${i + 1}`}
                onClick={() => {
                  onChange(removeItem(items, i));
                  focusLater(`[data-add="${kind}"]`);
                }}
              >
                Șterge
              </button>
            </div>
          </li>
        ))}
      </ol>
      <button type="button" data-add={kind} onClick={() => onChange([...items, newItem()])}>
        {kind === 'step' ? 'Adaugă pas' : 'Adaugă indiciu'}
      </button>
    </fieldset>
  );
}

// The edit screen's form, shared by the generator and the review queue: every field of the
// case, its articles, and steps and hints reorderable and deletable (numbers follow the order).
export function CaseEditor({ draft, onChange, articleExtra }: Props) {
  const [articleInput, setArticleInput] = useState('');
  const [articleError, setArticleError] = useState<string | null>(null);
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => onChange({ ...draft, [k]: v });
  const add = () => {
    const r = addArticle(draft.articles, articleInput, draftDomain(draft));
    if ('error' in r) {
      setArticleError(r.error);
      return;
    }
    setArticleError(null);
    setArticleInput('');
    set('articles', r.articles);
  };
  return (
    <div className="case-editor">
      <div className="field">
        <label htmlFor="ed-code">Cod caz</label>
        <input id="ed-code" value={draft.case_code} onChange={(e) => set('case_code', e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="ed-title">Titlu</label>
        <input id="ed-title" value={draft.title} onChange={(e) => set('title', e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="ed-problem">Problema juridică</label>
        <textarea id="ed-problem" rows={3} value={draft.legal_problem} onChange={(e) => set('legal_problem', e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="ed-description">Descrierea cazului</label>
        <textarea id="ed-description" rows={10} value={draft.case_description} onChange={(e) => set('case_description', e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="ed-question">Întrebare</label>
        <textarea id="ed-question" rows={2} value={draft.question} onChange={(e) => set('question', e.target.value)} />
      </div>
      <div className="row">
        <div className="field">
          <label htmlFor="ed-category">Categorie</label>
          <input id="ed-category" value={draft.category} onChange={(e) => set('category', e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="ed-subcategory">Subcategorie</label>
          <input id="ed-subcategory" value={draft.subcategory} maxLength={SUBCATEGORY_MAX} onChange={(e) => set('subcategory', e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="ed-level">Nivel</label>
          <select id="ed-level" value={draft.level} onChange={(e) => set('level', e.target.value as Difficulty)}>
            {DIFFICULTIES.map((d) => (
              <option key={d.value} value={d.value}>{d.label}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="ed-week">Săptămâna</label>
          <select id="ed-week" value={draft.week_number} onChange={(e) => onChange({ ...draft, week_number: Number(e.target.value), case_code: codeForWeek(draft.case_code, Number(e.target.value)) })}>
            {WEEKS.map((w) => (
              <option key={w} value={w}>{weekLabel(w)}</option>
            ))}
          </select>
        </div>
      </div>
      <fieldset>
        <legend>Articole relevante</legend>
        <ul className="article-list">
          {draft.articles.map((a, i) => (
            <li key={a.reference}>
              <span className="badge article">{a.reference}</span>
              {articleExtra?.(a.reference)}
              <button type="button" aria-label={`Șterge ${a.reference}`} onClick={() => set('articles', removeItem(draft.articles, i))}>×</button>
            </li>
          ))}
        </ul>
        <div className="row">
          <div className="field">
            <label htmlFor="ed-article">Adaugă articol</label>
            <input id="ed-article" value={articleInput} onChange={(e) => setArticleInput(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), add())} />
          </div>
          <button type="button" onClick={add}>Adaugă</button>
        </div>
        {articleError && <p className="error" role="alert">{articleError}</p>}
      </fieldset>
      <ItemList kind="step" items={draft.steps} onChange={(v) => set('steps', v)} />
      <ItemList kind="hint" items={draft.hints} onChange={(v) => set('hints', v)} />
      {draft.model_answer != null ? (
        <div className="field">
          <label htmlFor="ed-model-answer">Soluția model</label>
          <p className="muted" id="ed-model-answer-note">
            Referința corectorului, redactată după metoda silogismului. Nu apare pe pagina cazului: corectorul AI o folosește ca reper când evaluează soluțiile.
          </p>
          <textarea id="ed-model-answer" aria-describedby="ed-model-answer-note" rows={12} value={draft.model_answer} onChange={(e) => set('model_answer', e.target.value)} />
        </div>
      ) : (
        <p className="muted">Soluția model nu a putut fi încărcată; salvarea o lasă neschimbată.</p>
      )}
    </div>
  );
}
