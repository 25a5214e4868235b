import { Link } from 'react-router-dom';
import { CriteriaChart } from '../../../components/charts/charts';
import { criterionDeltas, overallVerdict, scoreLabel, signed, strictnessLabel } from '../../../lib/score';
import { CheckIcon, HammerIcon, RobotIcon } from '../../../components/ui/icons';
import type { Graded } from '../api/submissions';
import type { Result, SubmissionState } from '../utils/submission';
import type { DraftNote } from '../hooks/useSolutionText';

// The pieces of the solution panel, each rendering one part of a submission's state.

// What a visitor without an account is asked when they try to save, ask the tutor or
// have their answer graded: their text stays where it is (see visitorDraft.ts).
export function AccountPrompt({ action }: { action: string }) {
  return (
    <div className="banner account-prompt" role="alert">
      <p>
        Ca să {action}, ai nevoie de un cont. Textul tău rămâne aici și îl regăsești în cont după ce confirmi adresa de email.
      </p>
      <Link className="button primary" to="/signup">Creează cont</Link>
    </div>
  );
}

export function StrictnessPicker({ level, disabled, onChange }: { level: number; disabled: boolean; onChange: (v: number) => void }) {
  return (
    <fieldset className="strictness">
      <legend>Exigența corectorului</legend>
      {([[1, 'Ușor', 1], [3, 'Mediu', 2], [5, 'Greu', 3]] as const).map(([v, l, hammers]) => (
        <label key={v}>
          <input type="radio" name="strictness" checked={level === v} disabled={disabled} onChange={() => onChange(v)} />
          <span className="hammers">{Array.from({ length: hammers }, (_, i) => <HammerIcon key={i} />)}</span> {l} ({v})
        </label>
      ))}
    </fieldset>
  );
}

export function RevisingNote({ from }: { from: Graded }) {
  return (
    <p className="banner revising" role="status">
      Revizuiești soluția evaluată cu {from.score} ({strictnessLabel(from.level)}). La trimitere vei vedea ce s-a schimbat pe fiecare criteriu.
    </p>
  );
}

export function DraftNoteBanner({ note, onRestore, onDiscard }: { note: Exclude<DraftNote, null>; onRestore: () => void; onDiscard: () => void }) {
  return (
    <p className="banner draft-note" role="status">
      {note === 'restored' ? 'Ciorna ta nesalvată pentru acest caz a fost restaurată.' : 'Ai o ciornă la care ai renunțat pentru acest caz.'}{' '}
      {note === 'offered' && (
        <button type="button" onClick={onRestore}>
          Restaurează ciorna
        </button>
      )}{' '}
      <button type="button" onClick={onDiscard}>
        Șterge ciorna
      </button>
    </p>
  );
}

// A blocked submission and its appeal: ask for a human check, follow it, start again.
export function AppealBanner({ state, onRequest, onGrade, onNewSolution }: {
  state: Extract<SubmissionState, { name: 'blocked' | 'appealed' | 'grading' }>;
  onRequest: () => void;
  onGrade: () => void;
  onNewSolution: () => void;
}) {
  const appeal = state.name === 'blocked' ? null : state.appeal;
  if (state.name === 'grading' && !appeal) return null;
  return (
    <div className="banner appeal" role="alert">
      <p><RobotIcon /> Hopa! Corectorul nostru a simțit miros de algoritm. Juriștii buni își scriu singuri raționamentele — încearcă din nou, cu propriile tale cuvinte.</p>
      {state.name === 'blocked' && (
        <>
          <p className="muted">Ai scris singur soluția? Un moderator îți poate citi textul și îl poate trimite la evaluare.</p>
          <button type="button" disabled={state.requesting} onClick={onRequest}>Solicită verificare umană</button>
        </>
      )}
      {appeal?.status === 'pending' && (
        <p data-testid="appeal-status" data-live={state.name === 'appealed' && state.live ? 'on' : 'off'}>
          Verificare umană solicitată. Un moderator îți va citi soluția; decizia apare aici imediat ce este luată.
        </p>
      )}
      {appeal?.status === 'released' && (
        <>
          <p data-testid="appeal-status">Un moderator a eliberat soluția pentru evaluare.</p>
          {state.name === 'appealed' && <button type="button" onClick={onGrade}>Evaluează soluția</button>}
        </>
      )}
      {appeal?.status === 'confirmed' && <p data-testid="appeal-status">Un moderator a confirmat blocarea. Motiv: {appeal.decision_reason}</p>}
      {state.name !== 'grading' && appeal?.status !== 'released' && (
        <button type="button" onClick={onNewSolution}>
          Scrie o soluție nouă
        </button>
      )}
    </div>
  );
}

function Deltas({ result }: { result: Result }) {
  const prev = result.previous!;
  const changes = criterionDeltas(prev.criteria, result.criteria).filter((d) => d.delta !== 0);
  return (
    <div className="deltas" aria-label="Schimbări față de încercarea anterioară">
      <h4>Față de încercarea anterioară</h4>
      <p data-testid="total-delta">
        Total: <strong>{signed(result.value - prev.value)}</strong> ({prev.value} → {result.value})
        {prev.level !== result.level && <span className="muted"> · anterior la {strictnessLabel(prev.level)}</span>}
      </p>
      {changes.length === 0 ? (
        <p className="muted">Niciun criteriu nu s-a schimbat.</p>
      ) : (
        <ul>
          {changes.map((d) => (
            <li key={d.code} data-testid="criterion-delta" className={d.delta > 0 ? 'up' : 'down'}>
              {signed(d.delta)} la {d.label}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

// The grader's overall verdict ("Calificativ", strengths, what to improve).
function Verdict({ feedback }: { feedback: string }) {
  const verdict = overallVerdict(feedback);
  if (!verdict) return null;
  return (
    <div className="verdict" data-testid="verdict">
      <h4>Aprecierea generală</h4>
      {verdict.split('\n').map((l, i) => <p key={i}>{l}</p>)}
    </div>
  );
}

export function ResultCard({ result, onRevise, onReset, ref }: { result: Result; onRevise: () => void; onReset: () => void; ref?: React.Ref<HTMLElement> }) {
  return (
    <section className="card result" aria-label="Evaluare Completă" ref={ref}>
      <h3><CheckIcon /> Evaluare Completă</h3>
      <p className="big">
        <span>{scoreLabel(result.score, result.value)}</span> <span className="strictness-tag">{strictnessLabel(result.level)}</span>
      </p>
      <Verdict feedback={result.feedback} />
      {result.previous && <Deltas result={result} />}
      {result.criteria.some((c) => c.score != null) && <CriteriaChart rows={result.criteria} />}
      <div className="row">
        <button type="button" onClick={onRevise}>Revizuiește soluția</button>
        <button type="button" onClick={onReset}>Resetează</button>
      </div>
    </section>
  );
}
