import type { Dispatch, SetStateAction } from 'react';
import {
  DIFFICULTIES,
  DOMAINS,
  MSG_NO_DOMAIN,
  removeItem,
  SUBCATEGORY_MAX,
  WEEKS,
  weekLabel,
  type Difficulty,
  type GenDomain,
  type GenerationChoices,
} from '../../../lib/caseDraft';
import type { CategoryRow } from '../api/cases';

// The generator's five wizard steps, one component each; the wizard (Generator.tsx) holds
// the choices and which step is shown.

export type Choices = GenerationChoices & { subcategoryFree: boolean };
export const DEFAULTS: Choices = { domain: null, categories: [], articles: [], topic: '', focus: '', difficulty: 'mediu', week: 1, subcategory: '', subcategoryFree: false };
type SetChoices = Dispatch<SetStateAction<Choices>>;
export type SubOption = { category: string; name: string };

export function DomainStep({ c, chooseDomain }: { c: Choices; chooseDomain: (d: GenDomain) => void }) {
  return (
    <fieldset>
      <legend>Alege domeniul</legend>
      {DOMAINS.map((d) => (
        <label key={d.value} className="choice">
          <input type="radio" name="domain" checked={c.domain === d.value} onChange={() => chooseDomain(d.value)} /> {d.label}
        </label>
      ))}
    </fieldset>
  );
}

export function CategoriesStep({ c, categories, toggleCategory }: { c: Choices; categories: CategoryRow[]; toggleCategory: (name: string) => void }) {
  return (
    <fieldset>
      {/* The step's heading shows the name; the legend names the group for screen readers
          only (walkthrough 3, bug 34), as in the steps below. */}
      <legend className="sr-only">Categorii</legend>
      {!c.domain && <p className="muted">{MSG_NO_DOMAIN}</p>}
      <div className="category-grid">
        {categories.map((cat) => (
          <label key={cat.id} className="choice">
            <input type="checkbox" checked={c.categories.includes(cat.name)} onChange={() => toggleCategory(cat.name)} /> {cat.name}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function ArticlesStep({ c, setC, articleInput, setArticleInput, articleError, addArt }: {
  c: Choices;
  setC: SetChoices;
  articleInput: string;
  setArticleInput: (v: string) => void;
  articleError: string | null;
  addArt: () => void;
}) {
  return (
    <fieldset>
      <legend className="sr-only">Articole</legend>
      <p className="muted">Număr simplu (1357), cu alineat (1357 alin. 1 sau al. 1), interval (45-49) sau literă (1357 lit. a).</p>
      <div className="row">
        <div className="field">
          <label htmlFor="gen-article">Numărul articolului</label>
          <input id="gen-article" value={articleInput} onChange={(e) => setArticleInput(e.target.value)} onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), addArt())} />
        </div>
        <button type="button" onClick={addArt}>Adaugă articolul</button>
      </div>
      {articleError && <p className="error" role="alert">{articleError}</p>}
      <ul className="article-list">
        {c.articles.map((a, i) => (
          <li key={a.number}>
            <span className="badge article">{a.reference}</span>
            <button type="button" aria-label={`Șterge ${a.reference}`} onClick={() => setC((x) => ({ ...x, articles: removeItem(x.articles, i) }))}>×</button>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

export function ContextStep({ c, setC }: { c: Choices; setC: SetChoices }) {
  return (
    <fieldset>
      <legend className="sr-only">Context</legend>
      <div className="field">
        <label htmlFor="gen-topic">Descrierea temei</label>
        <textarea id="gen-topic" rows={4} value={c.topic} onChange={(e) => setC((x) => ({ ...x, topic: e.target.value }))} />
      </div>
      <div className="field">
        <label htmlFor="gen-focus">Focus specific</label>
        <textarea id="gen-focus" rows={3} value={c.focus} onChange={(e) => setC((x) => ({ ...x, focus: e.target.value }))} />
      </div>
    </fieldset>
  );
}

export function ConfigStep({ c, setC, subOptions, freeText }: { c: Choices; setC: SetChoices; subOptions: SubOption[]; freeText: boolean }) {
  return (
    <fieldset>
      <legend className="sr-only">Configurare</legend>
      <div className="field">
        <label htmlFor="gen-difficulty">Dificultate</label>
        <select id="gen-difficulty" value={c.difficulty} onChange={(e) => setC((x) => ({ ...x, difficulty: e.target.value as Difficulty }))}>
          {DIFFICULTIES.map((d) => (
            <option key={d.value} value={d.value}>{d.label}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="gen-week">Săptămâna</label>
        <select id="gen-week" value={c.week} onChange={(e) => setC((x) => ({ ...x, week: Number(e.target.value) }))}>
          {WEEKS.map((w) => (
            <option key={w} value={w}>{weekLabel(w)}</option>
          ))}
        </select>
      </div>
      {subOptions.length > 0 && (
        <div className="field">
          <label htmlFor="gen-subcategory">Subcategorie</label>
          <select id="gen-subcategory"
            value={c.subcategoryFree ? '__free' : c.subcategory}
            onChange={(e) => {
              const v = e.target.value;
              setC((x) => (v === '__free' ? { ...x, subcategoryFree: true, subcategory: '' } : { ...x, subcategoryFree: false, subcategory: v }));
            }}
          >
            <option value="">— fără subcategorie —</option>
            {subOptions.map((s) => (
              <option key={`${s.category}/${s.name}`} value={s.name}>{`${s.category} (${s.name})`}</option>
            ))}
            <option value="__free">Altă subcategorie (text liber)</option>
          </select>
        </div>
      )}
      {freeText && (
        <div className="field">
          <label htmlFor="gen-subcategory-text">{subOptions.length > 0 ? 'Subcategorie (text liber)' : 'Subcategorie'}</label>
          <input id="gen-subcategory-text" value={c.subcategory} maxLength={SUBCATEGORY_MAX} onChange={(e) => setC((x) => ({ ...x, subcategory: e.target.value }))} />
        </div>
      )}
    </fieldset>
  );
}
