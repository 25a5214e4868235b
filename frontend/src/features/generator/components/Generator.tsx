import { ArrowLeftIcon } from '../../../components/ui/icons';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { aiEnabled, supabase } from '../../../lib/supabase';
import { useAuthStore } from '../../../lib/auth/store';
import type { Json } from '../../../types/database';
import { CaseEditor } from '../../../components/case-editor/CaseEditor';
import { classifyCase, generateCase } from '../api/ai';
import {
  addArticle,
  caseCode,
  DIFFICULTIES,
  DOMAINS,
  draftFromGenerated,
  generationRequest,
  joinMessages,
  MSG_NO_DOMAIN,
  MSG_NOT_AUTHENTICATED,
  removeItem,
  saveErrorMessage,
  SUBCATEGORY_MAX,
  toPayload,
  validateDraft,
  WEEKS,
  weekLabel,
  type Difficulty,
  type Draft,
  type GenDomain,
  type GenerationChoices,
} from '../../../lib/caseDraft';

export const STEPS = ['Domeniu', 'Categorii', 'Articole', 'Context', 'Configurare'] as const;
const clampStep = (n: number) => Math.min(STEPS.length, Math.max(1, n));

type CategoryRow = { id: string; name: string; law_subcategories: { name: string; position: number }[] };
type Choices = GenerationChoices & { subcategoryFree: boolean };
const DEFAULTS: Choices = { domain: null, categories: [], articles: [], topic: '', focus: '', difficulty: 'mediu', week: 1, subcategory: '', subcategoryFree: false };

// The domain's catalogue, read through the data API.
function useCategories(domain: GenDomain | null): CategoryRow[] {
  const [rows, setRows] = useState<{ domain: GenDomain; rows: CategoryRow[] } | null>(null);
  useEffect(() => {
    if (!domain) return;
    let live = true;
    supabase()
      .from('law_categories')
      .select('id, name, position, law_subcategories(name, position)')
      .eq('domain', domain)
      .order('position')
      .order('position', { referencedTable: 'law_subcategories' })
      .then(({ data, error }) => {
        if (error) console.error('catalogue load failed', error);
        if (live) setRows({ domain, rows: (data ?? []) as unknown as CategoryRow[] });
      });
    return () => {
      live = false;
    };
  }, [domain]);
  return rows && rows.domain === domain ? rows.rows : [];
}

function Progress() {
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setElapsed((s) => s + 1), 1000);
    return () => clearInterval(t);
  }, []);
  return (
    <div className="generating" role="status" aria-live="polite">
      <p>
        <span className="spinner" aria-hidden /> Se generează cazul... ({elapsed} s)
      </p>
      <progress max={30} value={Math.min(elapsed, 30)} aria-label="Progresul generării" />
      <p className="muted">Generarea durează aproximativ 10-30 de secunde.</p>
    </div>
  );
}

export default function Generator() {
  const [step, setStep] = useState(1);
  const [c, setC] = useState<Choices>(DEFAULTS);
  const [articleInput, setArticleInput] = useState('');
  const [articleError, setArticleError] = useState<string | null>(null);
  const [phase, setPhase] = useState<'wizard' | 'generating' | 'edit' | 'saving' | 'saved'>('wizard');
  const [error, setError] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [savedCode, setSavedCode] = useState('');
  const categories = useCategories(c.domain);
  const aiOn = aiEnabled();

  const reset = () => {
    setStep(1);
    setC(DEFAULTS);
    setArticleInput('');
    setArticleError(null);
    setError(null);
    setDraft(null);
    setPhase('wizard');
  };
  const chooseDomain = (d: GenDomain) =>
    // A new domain clears what belonged to the old one.
    setC((x) => (x.domain === d ? x : { ...x, domain: d, categories: [], articles: [], subcategory: '', subcategoryFree: false }));
  const toggleCategory = (name: string) =>
    setC((x) => ({ ...x, categories: x.categories.includes(name) ? x.categories.filter((n) => n !== name) : [...x.categories, name] }));
  const addArt = () => {
    const r = addArticle(c.articles, articleInput, c.domain);
    if ('error' in r) return setArticleError(r.error);
    setArticleError(null);
    setArticleInput('');
    setC((x) => ({ ...x, articles: r.articles }));
  };
  // The subcategory list: of the chosen categories, else of the whole domain.
  const subOptions = categories
    .filter((cat) => c.categories.length === 0 || c.categories.includes(cat.name))
    .flatMap((cat) => cat.law_subcategories.map((s) => ({ category: cat.name, name: s.name })));
  const freeText = c.subcategoryFree || subOptions.length === 0;

  const generate = async () => {
    setError(null);
    if (!c.domain) return setError(MSG_NO_DOMAIN);
    setPhase('generating');
    try {
      const g = await generateCase(generationRequest(c));
      const picked = subOptions.find((s) => s.name === c.subcategory);
      let category = picked?.category ?? c.categories[0] ?? '';
      let subcategory = c.subcategory.trim();
      if (!category || !subcategory) {
        const k = await classifyCase(c.domain, g);
        category ||= k?.category ?? '';
        subcategory ||= k?.subcategory ?? '';
      }
      setDraft(draftFromGenerated(g, { code: caseCode(c.domain, c.week), domain: c.domain, level: c.difficulty, week: c.week, category, subcategory, articles: c.articles }));
      setPhase('edit');
    } catch (e) {
      setError((e as Error).message);
      setPhase('wizard');
    }
  };

  const save = async () => {
    if (!draft) return;
    const problems = validateDraft(draft);
    if (problems.length) return setError(joinMessages(problems));
    if (!useAuthStore.getState().user) return setError(MSG_NOT_AUTHENTICATED);
    setError(null);
    setPhase('saving');
    const payload = toPayload(draft);
    const { data, error: err } = await supabase().rpc('save_generated_case', { p_case: payload as unknown as Json });
    if (err || !data) {
      setError(err ? saveErrorMessage(err, payload.case_code) : 'Nu s-a putut obține ID-ul cazului creat');
      setPhase('edit');
      return;
    }
    setSavedCode(payload.case_code);
    setPhase('saved');
  };

  return (
    <main className="page generator">
      <Link to="/dashboard"><ArrowLeftIcon /> Înapoi la dashboard</Link>
      <h1>Generator de cazuri</h1>
      {!aiOn && (
        <p className="banner">Funcțiile AI sunt oprite pe acest server: generatorul are nevoie de un furnizor AI configurat (vezi README).</p>
      )}

      {phase === 'saved' && (
        <section className="card" aria-labelledby="saved-title">
          <h2 id="saved-title">Cazul a fost salvat</h2>
          <p>
            Cod: <strong data-testid="saved-code">{savedCode}</strong> <span className="badge">Neverificat</span>
          </p>
          <p className="muted">Un profesionist îl va verifica înainte să apară ca verificat.</p>
          <button type="button" onClick={reset}>Generează alt caz</button>
        </section>
      )}

      {(phase === 'edit' || phase === 'saving') && draft && (
        <section className="card" aria-labelledby="edit-title">
          <h2 id="edit-title">Editează și salvează</h2>
          <CaseEditor draft={draft} onChange={setDraft} />
          {error && <p className="error" role="alert">{error}</p>}
          <div className="row">
            <button type="button" onClick={reset}>Anulează</button>
            <button type="button" className="primary" disabled={phase === 'saving'} onClick={save}>
              {phase === 'saving' ? 'Se salvează...' : 'Salvează cazul'}
            </button>
          </div>
        </section>
      )}

      {phase === 'generating' && (
        <section className="card">
          <Progress />
        </section>
      )}

      {phase === 'wizard' && (
        <section className="card wizard" aria-labelledby="step-title">
          <ol className="steps">
            {STEPS.map((s, i) => (
              <li key={s} aria-current={step === i + 1 ? 'step' : undefined} className={step === i + 1 ? 'active' : undefined}>{s}</li>
            ))}
          </ol>
          <p className="muted">Pasul {step} din {STEPS.length} · toți pașii sunt opționali. Generarea durează aproximativ 10-30 de secunde.</p>
          <h2 id="step-title">{STEPS[step - 1]}</h2>

          {step === 1 && (
            <fieldset>
              <legend>Alege domeniul</legend>
              {DOMAINS.map((d) => (
                <label key={d.value} className="choice">
                  <input type="radio" name="domain" checked={c.domain === d.value} onChange={() => chooseDomain(d.value)} /> {d.label}
                </label>
              ))}
            </fieldset>
          )}

          {step === 2 && (
            <fieldset>
              <legend>Categorii</legend>
              {!c.domain && <p className="muted">{MSG_NO_DOMAIN}</p>}
              <div className="category-grid">
                {categories.map((cat) => (
                  <label key={cat.id} className="choice">
                    <input type="checkbox" checked={c.categories.includes(cat.name)} onChange={() => toggleCategory(cat.name)} /> {cat.name}
                  </label>
                ))}
              </div>
            </fieldset>
          )}

          {step === 3 && (
            <fieldset>
              <legend>Articole</legend>
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
          )}

          {step === 4 && (
            <fieldset>
              <legend>Context</legend>
              <div className="field">
                <label htmlFor="gen-topic">Descrierea temei</label>
                <textarea id="gen-topic" rows={4} value={c.topic} onChange={(e) => setC((x) => ({ ...x, topic: e.target.value }))} />
              </div>
              <div className="field">
                <label htmlFor="gen-focus">Focus specific</label>
                <textarea id="gen-focus" rows={3} value={c.focus} onChange={(e) => setC((x) => ({ ...x, focus: e.target.value }))} />
              </div>
            </fieldset>
          )}

          {step === 5 && (
            <fieldset>
              <legend>Configurare</legend>
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
          )}

          {error && <p className="error" role="alert">{error}</p>}
          <div className="row">
            <button type="button" disabled={step === 1} onClick={() => (setError(null), setStep((s) => clampStep(s - 1)))}>Înapoi</button>
            {step < STEPS.length ? (
              <button type="button" className="primary" onClick={() => (setError(null), setStep((s) => clampStep(s + 1)))}>Continuă</button>
            ) : (
              <button type="button" className="primary" disabled={!aiOn} onClick={generate}>Generează cazul</button>
            )}
            <button type="button" onClick={reset}>Resetează</button>
          </div>
        </section>
      )}
    </main>
  );
}
