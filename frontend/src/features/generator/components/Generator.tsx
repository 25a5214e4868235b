import { ArrowLeftIcon } from '../../../components/ui/icons';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { aiEnabled } from '../../../lib/ai';
import { useAuthStore } from '../../../lib/auth/store';
import { CaseEditor } from '../../../components/case-editor/CaseEditor';
import { classifyCase, generateCase } from '../api/ai';
import {
  addArticle,
  caseCode,
  draftFromGenerated,
  generationRequest,
  joinMessages,
  MSG_NO_DOMAIN,
  MSG_NOT_AUTHENTICATED,
  saveErrorMessage,
  toPayload,
  validateDraft,
  type Draft,
  type GenDomain,
} from '../../../lib/caseDraft';
import { saveGeneratedCase } from '../api/cases';
import { useCategories } from '../hooks/useCategories';
import { ArticlesStep, CategoriesStep, ConfigStep, ContextStep, DEFAULTS, DomainStep, type Choices } from './WizardSteps';

export const STEPS = ['Domeniu', 'Categorii', 'Articole', 'Context', 'Configurare'] as const;
const clampStep = (n: number) => Math.min(STEPS.length, Math.max(1, n));

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
    const { id: data, error: err } = await saveGeneratedCase(payload);
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
      <Link to="/dashboard"><ArrowLeftIcon /> Înapoi la spețe</Link>
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

          {step === 1 && <DomainStep c={c} chooseDomain={chooseDomain} />}
          {step === 2 && <CategoriesStep c={c} categories={categories} toggleCategory={toggleCategory} />}
          {step === 3 && (
            <ArticlesStep c={c} setC={setC} articleInput={articleInput} setArticleInput={setArticleInput} articleError={articleError} addArt={addArt} />
          )}
          {step === 4 && <ContextStep c={c} setC={setC} />}
          {step === 5 && <ConfigStep c={c} setC={setC} subOptions={subOptions} freeText={freeText} />}

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
