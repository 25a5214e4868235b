import { useState, type FormEvent } from 'react';
import { toast } from '../../../components/ui/toast';
import { useQuery } from '../../../lib/query';
import { useDebounced } from '../../../lib/useDebounced';
import { createAssignment, fetchCategories, searchCases, type CaseChoice, type NewAssignment } from '../api/seminars';
import { bucharestInput } from '../utils/time';
import { GrilePicker } from './GrilePicker';

const WEEK = 7 * 24 * 60 * 60 * 1000;
const NO_CASES: CaseChoice[] = [];

const initial = (): NewAssignment => ({
  kind: 'case',
  title: '',
  caseId: null,
  opensAt: '',
  deadline: bucharestInput(new Date(Date.now() + WEEK)),
  strictness: 3,
  tutorAllowed: true,
  revisions: 0,
  latePolicy: 'accept',
  instructions: '',
  grileMode: 'drawn',
  grileQuestions: [],
  grileCategories: [],
  grileCount: 10,
  grileMinutes: 20,
});

// A new assignment: a case (searched by code or title), grile drawn from categories or
// grile chosen one by one (GrilePicker), opening time and deadline in Romania's time, strictness, tutor, revisions, late policy.
export function NewAssignmentForm({ groupId, onCreated }: { groupId: string; onCreated: () => void }) {
  const [a, setA] = useState<NewAssignment>(initial);
  const [q, setQ] = useState('');
  // The search runs a quarter of a second after the last keystroke.
  const term = useDebounced(q.trim(), 250);
  const found = useQuery(term ? ['case-search', term] : null, () => searchCases(term), { gcTime: 0 }).data ?? NO_CASES;
  const [chosen, setChosen] = useState<CaseChoice | null>(null);
  const cats = useQuery(a.kind === 'grile' && a.grileMode === 'drawn' ? ['law-categories'] : null, fetchCategories).data ?? [];
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const set = (patch: Partial<NewAssignment>) => setA((x) => ({ ...x, ...patch }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (a.kind === 'case' && !a.caseId) {
      setError('Alege cazul temei.');
      return;
    }
    if (a.kind === 'grile' && a.grileMode === 'chosen' && a.grileQuestions.length === 0) {
      setError('Alege cel puțin o grilă.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const made = await createAssignment(groupId, a);
      toast.success('Tema a fost creată', made.title);
      setA(initial());
      setChosen(null);
      setQ('');
      onCreated();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="assignment-form" aria-label="Temă nouă">
      <fieldset className="choices">
        <legend>Tipul temei</legend>
        <label className="choice"><input type="radio" name="kind" checked={a.kind === 'case'} onChange={() => set({ kind: 'case' })} /> Speță</label>
        <label className="choice"><input type="radio" name="kind" checked={a.kind === 'grile'} onChange={() => set({ kind: 'grile' })} /> Grile</label>
      </fieldset>
      {a.kind === 'case' ? (
        <div className="case-pick">
          <label>
            Caută cazul (cod sau titlu)
            <input value={q} onChange={(e) => setQ(e.target.value)} placeholder="CIV2ABD sau „vecin”" />
          </label>
          {chosen && (
            <p data-testid="chosen-case">
              Cazul ales: <strong>{chosen.case_code}</strong> {chosen.title}
            </p>
          )}
          {found.length > 0 && (
            <ul className="case-results" aria-label="Cazuri găsite">
              {found.map((c) => (
                <li key={c.id}>
                  <button
                    type="button"
                    aria-pressed={a.caseId === c.id}
                    onClick={() => {
                      setChosen(c);
                      set({ caseId: c.id, title: a.title || c.title });
                    }}
                  >
                    <span className="code">{c.case_code}</span> {c.title}
                    {c.rejection_reason ? <span className="badge rejected">Respins</span> : c.verified ? <span className="badge verified">Verificat</span> : null}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : (
        <div className="grile-pick">
          <fieldset className="choices">
            <legend>Cum se aleg grilele</legend>
            <label className="choice"><input type="radio" name="grile-mode" checked={a.grileMode === 'drawn'} onChange={() => set({ grileMode: 'drawn' })} /> Extrase pentru fiecare student din categorii</label>
            <label className="choice"><input type="radio" name="grile-mode" checked={a.grileMode === 'chosen'} onChange={() => set({ grileMode: 'chosen' })} /> Alese de mine</label>
          </fieldset>
          {a.grileMode === 'drawn' ? (
            <>
              <fieldset>
                <legend>Categoriile din care se extrag grilele (niciuna: toate)</legend>
                <div className="grile-cats">
                  {cats.map((c) => (
                    <label key={c.id} className="choice">
                      <input
                        type="checkbox"
                        checked={a.grileCategories.includes(c.id)}
                        onChange={(e) => set({ grileCategories: e.target.checked ? [...a.grileCategories, c.id] : a.grileCategories.filter((x) => x !== c.id) })}
                      />
                      {c.name}
                    </label>
                  ))}
                </div>
              </fieldset>
              <div className="form-grid">
                <label>Număr de grile<input type="number" min={1} max={100} value={a.grileCount} onChange={(e) => set({ grileCount: Number(e.target.value) })} /></label>
                <label>Durata (minute)<input type="number" min={1} max={240} value={a.grileMinutes} onChange={(e) => set({ grileMinutes: Number(e.target.value) })} /></label>
              </div>
            </>
          ) : (
            <>
              <GrilePicker value={a.grileQuestions} onChange={(grileQuestions) => set({ grileQuestions })} />
              <div className="form-grid">
                <label>Durata (minute)<input type="number" min={1} max={240} value={a.grileMinutes} onChange={(e) => set({ grileMinutes: Number(e.target.value) })} /></label>
              </div>
            </>
          )}
        </div>
      )}
      <div className="form-grid">
        <label>Titlul temei<input value={a.title} onChange={(e) => set({ title: e.target.value })} placeholder="Tema 1: răspunderea civilă delictuală" maxLength={200} /></label>
        <label>Se deschide (ora României; gol: acum)<input type="datetime-local" value={a.opensAt} onChange={(e) => set({ opensAt: e.target.value })} /></label>
        <label>Termen-limită (ora României)<input type="datetime-local" value={a.deadline} onChange={(e) => set({ deadline: e.target.value })} required /></label>
        {a.kind === 'case' && (
          <label>
            Exigența corectorului
            <select value={a.strictness} onChange={(e) => set({ strictness: Number(e.target.value) })}>
              <option value={1}>Ușor (1)</option>
              <option value={3}>Mediu (3)</option>
              <option value={5}>Greu (5)</option>
            </select>
          </label>
        )}
        <label>
          Revizuiri care contează
          <select value={a.revisions} onChange={(e) => set({ revisions: Number(e.target.value) })}>
            {[0, 1, 2, 3, 4, 5].map((n) => <option key={n} value={n}>{n === 0 ? 'Niciuna' : n}</option>)}
          </select>
        </label>
        <label>
          Lucrări întârziate
          <select value={a.latePolicy} onChange={(e) => set({ latePolicy: e.target.value as 'accept' | 'refuse' })}>
            <option value="accept">Se primesc și se marchează întârziate</option>
            <option value="refuse">Nu se primesc</option>
          </select>
        </label>
      </div>
      {a.kind === 'case' && (
        <label className="choice"><input type="checkbox" checked={a.tutorAllowed} onChange={(e) => set({ tutorAllowed: e.target.checked })} /> Studenții pot folosi tutorele AI</label>
      )}
      <label>Indicații pentru studenți (opțional)<textarea rows={3} value={a.instructions} onChange={(e) => set({ instructions: e.target.value })} maxLength={4000} /></label>
      {error && <p className="error" role="alert">{error}</p>}
      <div className="row">
        <button type="submit" className="primary" disabled={busy}>Creează tema</button>
      </div>
    </form>
  );
}
