import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { useAuthStore } from '../../../lib/auth/store';
import { toast } from '../../../components/ui/toast';
import { CriteriaChart } from '../../../components/charts/charts';
import { criterionDeltas, overallVerdict, scoreLabel, signed, strictnessLabel } from '../../../lib/score';
import { SignalRecorder } from '../utils/signals';
import { insertSubmission, readDetection, readGraded, runTask, saveSignals, type Graded } from '../api/submissions';
import { openSubmissionOnCase, requestHumanReview, watchAppeal, type Appeal } from '../api/appeal';
import { readVisitorDraft, saveVisitorDraft, clearVisitorDraft } from '../utils/visitorDraft';
import { clearDraft, readDraft, writeDraft } from '../utils/drafts';
import { CheckIcon, HammerIcon, RobotIcon } from '../../../components/ui/icons';

const TEMPLATE = `Introducere: situația de fapt, calificarea juridică, problema de drept.
Premisa majoră: norma aplicabilă (articolele, condițiile).
Premisa minoră: faptele cazului raportate la normă.
Concluzie: soluția.`;

const ERROR = 'Ne pare rău, a apărut o eroare. Te rugăm să încerci din nou.';
// What the gateway answers (502) when a grade could not be finalised; shown as it is.
const NOT_FINALISED = 'Evaluarea nu a putut fi finalizată. Încearcă din nou.';

type Result = Graded & { previous: Graded | null };

// The spec's pass rule (§5) on the stored verdict; a moderator's release also lets it through.
function detectionPassed(decision: string | null, probability: number | null): boolean {
  if (decision) return ['PASSED', 'RELEASED'].includes(decision.toUpperCase());
  return probability != null && Number(probability) <= 30;
}

// The message of an Anthropic-shaped error from the gateway, if any.
function gatewayMessage(e: unknown): string | undefined {
  const body = (e as { error?: { error?: { message?: unknown } } })?.error;
  const m = body?.error?.message;
  return typeof m === 'string' ? m : undefined;
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

// What a visitor without an account is asked when they try to save, ask the tutor or
// have their answer graded: their text stays where it is (see draft.ts).
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

export function SolutionPanel({ caseId, aiOn }: { caseId: string; aiOn: boolean }) {
  const visitor = useAuthStore((s) => !!s.user?.is_anonymous);
  const [ask, setAsk] = useState<string | null>(null);
  const userId = useAuthStore((s) => s.user?.id ?? null);
  // A draft kept for this case comes back (restored, or offered when it was given up); a
  // visitor's answer (and, once they have an account, the answer they wrote as one) too.
  const [initial] = useState(() => {
    const d = readDraft(userId, caseId);
    if (d) return d;
    const v = readVisitorDraft();
    return v?.caseId === caseId ? { text: v.text, level: 3, at: '' } : null;
  });
  const [draftNote, setDraftNote] = useState<'restored' | 'offered' | null>(initial ? (initial.discarded ? 'offered' : 'restored') : null);
  const [level, setLevel] = useState(initial && !initial.discarded ? initial.level : 3);
  const [text, setText] = useState(initial && !initial.discarded ? initial.text : '');
  const [phase, setPhase] = useState<'idle' | 'detecting' | 'assessing' | 'appealing'>('idle');
  // The submission the AI check blocked, and its appeal once asked for.
  const [blocked, setBlocked] = useState<string | null>(null);
  const [appeal, setAppeal] = useState<Appeal | null>(null);
  const [live, setLive] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  // The graded attempt being revised: the next submission is linked to it.
  const [revising, setRevising] = useState<Graded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const recorder = useRef(new SignalRecorder());
  const area = useRef<HTMLTextAreaElement>(null);
  // A case with a draft opens its solution panel, so the draft (or the offer) is seen.
  useEffect(() => {
    const d = area.current?.closest('details');
    if (initial && d) d.open = true;
  }, [initial]);
  // A new result is scrolled into view (it appears below the long text area).
  const resultRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (result) resultRef.current?.scrollIntoView({ block: 'start', behavior: window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
  }, [result]);

  const grade = async (submissionId: string, previous: Graded | null) => {
    const { session } = useAuthStore.getState();
    if (!session) return;
    setPhase('assessing');
    setError(null);
    try {
      await runTask(session.access_token, 'grade', submissionId);
      const graded = await readGraded(submissionId);
      setBlocked(null);
      setAppeal(null);
      setRevising(null);
      setResult({ ...graded, previous });
      toast.success('Evaluare completă!', 'Soluția ta a fost evaluată cu succes.');
    } catch (e) {
      const msg = gatewayMessage(e);
      setError(msg === NOT_FINALISED ? NOT_FINALISED : ERROR);
      toast.error('Eroare la evaluare', msg ?? (e as Error).message);
    } finally {
      setPhase('idle');
    }
  };

  // A pending or decided appeal on this case, or a failed evaluation (the student may come back later).
  useEffect(() => {
    const user = useAuthStore.getState().user;
    if (!user) return;
    let on = true;
    openSubmissionOnCase(caseId, user.id).then((open) => {
      if (!on || !open) return;
      // Its appeal (pending or decided) or failure is shown in this panel: opened, so the
      // student sees it on coming back (walkthrough 3, bug 7).
      const d = area.current?.closest('details');
      if (d && (open.appeal || open.failed)) d.open = true;
      if (open.appeal) {
        setBlocked(open.appeal.submission_id);
        setAppeal(open.appeal);
        setText(open.text);
        setLevel(open.level);
      } else if (open.failed) {
        // A failed evaluation: its text comes back, ready to be sent again.
        setText((t) => t || open.text);
        setLevel(open.level);
        setError('Evaluarea anterioară a eșuat. Textul tău a fost păstrat: apasă „Evaluează Soluția” pentru a încerca din nou.');
      }
    });
    return () => {
      on = false;
    };
  }, [caseId]);

  // While an appeal is pending, its outcome arrives live; a release starts the grading.
  const pendingId = appeal?.status === 'pending' ? appeal.id : null;
  useEffect(() => {
    if (!pendingId) return;
    let decided = false;
    const stop = watchAppeal(
      pendingId,
      (a) => {
        if (decided || a.status === 'pending') return;
        decided = true;
        setAppeal(a);
        if (a.status === 'released') void grade(a.submission_id, null);
      },
      () => setLive(true),
    );
    return () => {
      setLive(false);
      stop();
    };
    // grade uses only state setters and its arguments: the first closure is enough.
  }, [pendingId]);

  const evaluate = async () => {
    if (!text.trim()) {
      setError('Te rugăm să introduci soluția ta.');
      return;
    }
    const { session, user } = useAuthStore.getState();
    if (!session || !user) return;
    setError(null);
    setBlocked(null);
    setAppeal(null);
    setPhase('detecting');
    const previous = revising;
    let submissionId: string;
    try {
      const id = await insertSubmission({ user_id: user.id, case_id: caseId, submission_text: text, difficulty_rating: level, previous_submission_id: previous?.id ?? null });
      submissionId = id;
      // Submitted: the text is the submission's now, no longer a draft.
      clearDraft(userId, caseId);
      if (readVisitorDraft()?.caseId === caseId) clearVisitorDraft();
      setDraftNote(null);
      // The editor's process signals go with the submission, before its check (moderators read them).
      const signals = recorder.current.snapshot();
      recorder.current.reset();
      await saveSignals(id, user.id, signals);
      await runTask(session.access_token, 'detect', id);
      const check = await readDetection(id);
      if (!check || !detectionPassed(check.ai_decision, check.ai_probability)) {
        setBlocked(id);
        toast.error('Text generat de AI detectat', 'Te rugăm să scrii soluția cu propriile tale cuvinte.');
        setPhase('idle');
        return;
      }
    } catch (e) {
      setError(ERROR);
      toast.error('Eroare la evaluare', gatewayMessage(e) ?? (e as Error).message);
      setPhase('idle');
      return;
    }
    await grade(submissionId, previous);
  };

  const askForReview = async () => {
    if (!blocked) return;
    setPhase('appealing');
    setError(null);
    try {
      setAppeal(await requestHumanReview(blocked));
    } catch (e) {
      setError((e as { message?: string }).message || ERROR);
    } finally {
      setPhase('idle');
    }
  };

  const busy = phase !== 'idle';
  const frozen = appeal != null && appeal.status !== 'confirmed';
  return (
    <div className="solution">
      {!aiOn && (
        <p className="banner">
          Funcțiile AI sunt oprite pe acest server: evaluarea și tutorele au nevoie de un furnizor AI configurat (ANTHROPIC_API_KEY, vezi README).
        </p>
      )}
      <fieldset className="strictness">
        <legend>Exigența corectorului</legend>
        {([[1, 'Ușor', 1], [3, 'Mediu', 2], [5, 'Greu', 3]] as const).map(([v, l, hammers]) => (
          <label key={v}>
            <input
              type="radio"
              name="strictness"
              checked={level === v}
              disabled={frozen}
              onChange={() => {
                setLevel(v);
                if (text.trim() && !frozen) writeDraft(userId, caseId, text, v);
              }}
            />
            <span className="hammers">{Array.from({ length: hammers }, (_, i) => <HammerIcon key={i} />)}</span> {l} ({v})
          </label>
        ))}
      </fieldset>
      {revising && (
        <p className="banner revising" role="status">
          Revizuiești soluția evaluată cu {revising.score} ({strictnessLabel(revising.level)}). La trimitere vei vedea ce s-a schimbat pe fiecare criteriu.
        </p>
      )}
      {draftNote && (
        <p className="banner draft-note" role="status">
          {draftNote === 'restored' ? 'Ciorna ta nesalvată pentru acest caz a fost restaurată.' : 'Ai o ciornă la care ai renunțat pentru acest caz.'}{' '}
          {draftNote === 'offered' && (
            <button
              type="button"
              onClick={() => {
                const d = readDraft(userId, caseId);
                if (d) {
                  setText(d.text);
                  setLevel(d.level);
                  writeDraft(userId, caseId, d.text, d.level);
                }
                setDraftNote('restored');
              }}
            >
              Restaurează ciorna
            </button>
          )}{' '}
          <button
            type="button"
            onClick={() => {
              clearDraft(userId, caseId);
              if (draftNote === 'restored') setText('');
              setDraftNote(null);
            }}
          >
            Șterge ciorna
          </button>
        </p>
      )}
      <textarea
        ref={area}
        rows={15}
        placeholder={TEMPLATE}
        value={text}
        readOnly={frozen}
        onPaste={() => recorder.current.paste()}
        onDrop={() => recorder.current.paste()}
        onChange={(e) => {
          recorder.current.change(text, e.target.value);
          setText(e.target.value);
          // Every edit is kept until the text is submitted (issue 19, bug 11).
          writeDraft(userId, caseId, e.target.value, level);
          if (visitor || readVisitorDraft()?.caseId === caseId) saveVisitorDraft(caseId, e.target.value);
          if (draftNote === 'offered') setDraftNote(null);
        }}
        aria-label="Soluția ta"
      />
      {error && <p className="error" role="alert">{error}</p>}
      {blocked && (
        <div className="banner appeal" role="alert">
          <p><RobotIcon /> Hopa! Corectorul nostru a simțit miros de algoritm. Juriștii buni își scriu singuri raționamentele — încearcă din nou, cu propriile tale cuvinte.</p>
          {!appeal && (
            <>
              <p className="muted">Ai scris singur soluția? Un moderator îți poate citi textul și îl poate trimite la evaluare.</p>
              <button type="button" disabled={busy} onClick={askForReview}>Solicită verificare umană</button>
            </>
          )}
          {appeal?.status === 'pending' && (
            <p data-testid="appeal-status" data-live={live ? 'on' : 'off'}>
              Verificare umană solicitată. Un moderator îți va citi soluția; decizia apare aici imediat ce este luată.
            </p>
          )}
          {appeal?.status === 'released' && (
            <>
              <p data-testid="appeal-status">Un moderator a eliberat soluția pentru evaluare.</p>
              {phase !== 'assessing' && <button type="button" onClick={() => grade(appeal.submission_id, null)}>Evaluează soluția</button>}
            </>
          )}
          {appeal?.status === 'confirmed' && (
            <p data-testid="appeal-status">Un moderator a confirmat blocarea. Motiv: {appeal.decision_reason}</p>
          )}
          {appeal && appeal.status !== 'released' && (
            <button
              type="button"
              onClick={() => {
                setBlocked(null);
                setAppeal(null);
                setText('');
                clearDraft(userId, caseId);
                recorder.current.reset();
              }}
            >
              Scrie o soluție nouă
            </button>
          )}
        </div>
      )}
      {visitor ? (
        <>
          {ask && <AccountPrompt action={ask} />}
          <div className="row">
            <button type="button" disabled={!text} onClick={() => setAsk('îți salvezi soluția')}>Salvează soluția</button>
            <button type="button" className="primary" disabled={!text} onClick={() => setAsk('îți evaluăm soluția')}>Evaluează Soluția</button>
          </div>
        </>
      ) : (
        <button className="primary" disabled={!text || busy || !aiOn || frozen} onClick={evaluate} title={aiOn ? undefined : 'Evaluarea AI nu este configurată pe acest server'}>
          {phase === 'detecting' ? 'Verificare AI în curs...' : phase === 'assessing' ? 'Evaluare în curs...' : 'Evaluează Soluția'}
        </button>
      )}
      {result && (
        <section className="card result" aria-label="Evaluare Completă" ref={resultRef}>
          <h3><CheckIcon /> Evaluare Completă</h3>
          <p className="big">
            <span>{scoreLabel(result.score, result.value)}</span> <span className="strictness-tag">{strictnessLabel(result.level)}</span>
          </p>
          {overallVerdict(result.feedback) && (
            <div className="verdict" data-testid="verdict">
              <h4>Aprecierea generală</h4>
              {overallVerdict(result.feedback)!.split('\n').map((l, i) => <p key={i}>{l}</p>)}
            </div>
          )}
          {result.previous && <Deltas result={result} />}
          {result.criteria.some((c) => c.score != null) && <CriteriaChart rows={result.criteria} />}
          <div className="row">
            <button
              type="button"
              onClick={() => {
                setRevising(result);
                setText(result.text);
                setLevel(result.level);
                setResult(null);
                recorder.current.reset();
                area.current?.focus();
              }}
            >
              Revizuiește soluția
            </button>
            <button
              type="button"
              onClick={() => {
                setResult(null);
                setRevising(null);
                setText('');
                clearDraft(userId, caseId);
                setLevel(3);
                recorder.current.reset();
              }}
            >
              Resetează
            </button>
          </div>
        </section>
      )}
    </div>
  );
}
