import { useEffect, useRef, useState } from 'react';
import { useAuthStore } from '../../../lib/auth/store';
import { useSolutionText } from '../hooks/useSolutionText';
import { useSubmission } from '../hooks/useSubmission';
import { useCaseAssignment } from '../hooks/useCaseAssignment';
import { AssignmentBanner } from './AssignmentBanner';
import { accepts, busy, errorOf, revisingOf, textFrozen } from '../utils/submission';
import { AccountPrompt, AppealBanner, DraftNoteBanner, ResultCard, RevisingNote, StrictnessPicker } from './SolutionParts';

export { AccountPrompt };

const TEMPLATE = `Introducere: situația de fapt, calificarea juridică, problema de drept.
Premisa majoră: norma aplicabilă (articolele, condițiile).
Premisa minoră: faptele cazului raportate la normă.
Concluzie: soluția.`;

// "Rezolvă speța!": the editor (text, strictness, draft) and the submission's state
// (useSubmission), each part rendered by its own component (SolutionParts).
export function SolutionPanel({ caseId, aiOn }: { caseId: string; aiOn: boolean }) {
  const visitor = useAuthStore((s) => !!s.user?.is_anonymous);
  const userId = useAuthStore((s) => s.user?.id ?? null);
  const [ask, setAsk] = useState<string | null>(null);
  const draft = useSolutionText(caseId, userId, visitor);
  // A seminar assignment on this case fixes the strictness, and the work is handed in for it.
  const tema = useCaseAssignment(caseId);
  const handIn = tema.assignment?.can_submit ? tema.assignment : null;
  const sub = useSubmission(caseId, draft, handIn?.assignment_id ?? null);
  const { state, recorder } = sub;
  const area = useRef<HTMLTextAreaElement>(null);
  // A case with a draft, an appeal or a failed evaluation opens its solution panel, so the
  // student sees it on coming back (walkthrough 3, bug 7).
  const { hadDraft } = draft;
  const { restored } = sub;
  useEffect(() => {
    const d = area.current?.closest('details');
    if ((hadDraft || restored) && d) d.open = true;
  }, [hadDraft, restored]);
  // A new result is scrolled into view (it appears below the long text area).
  const resultRef = useRef<HTMLElement>(null);
  const graded = state.name === 'graded' ? state.result : null;
  useEffect(() => {
    if (graded) resultRef.current?.scrollIntoView({ block: 'start', behavior: window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
  }, [graded]);

  const frozen = textFrozen(state);
  const revising = revisingOf(state);
  const error = errorOf(state);
  return (
    <div className="solution" data-state={state.name}>
      {!aiOn && (
        <p className="banner">
          Funcțiile AI sunt oprite pe acest server: evaluarea și tutorele au nevoie de un furnizor AI configurat (ANTHROPIC_API_KEY, vezi README).
        </p>
      )}
      {tema.assignment && <AssignmentBanner a={tema.assignment} criteria={tema.criteria} />}
      <StrictnessPicker level={handIn ? handIn.strictness : draft.level} disabled={frozen || !!handIn} onChange={draft.setLevel} />
      {revising && <RevisingNote from={revising} />}
      {draft.note && <DraftNoteBanner note={draft.note} onRestore={draft.restore} onDiscard={draft.discard} />}
      <textarea
        ref={area}
        rows={15}
        placeholder={TEMPLATE}
        value={draft.text}
        readOnly={frozen}
        onPaste={() => recorder.current.paste()}
        onDrop={() => recorder.current.paste()}
        onChange={(e) => {
          recorder.current.change(draft.text, e.target.value);
          draft.edit(e.target.value);
        }}
        aria-label="Soluția ta"
      />
      {(state.name === 'checking' || state.name === 'grading') && (
        <p className="muted" role="status">Textul nu mai poate fi modificat cât timp soluția este evaluată.</p>
      )}
      {error && <p className="error" role="alert">{error}</p>}
      {(state.name === 'blocked' || state.name === 'appealed' || state.name === 'grading') && (
        <AppealBanner
          state={state}
          onRequest={sub.askForReview}
          onGrade={sub.gradeReleased}
          onNewSolution={() => {
            sub.reset();
            area.current?.focus();
          }}
        />
      )}
      {visitor ? (
        <>
          {ask && <AccountPrompt action={ask} />}
          <div className="row">
            <button type="button" disabled={!draft.text} onClick={() => setAsk('îți salvezi soluția')}>Salvează soluția</button>
            <button type="button" className="primary" disabled={!draft.text} onClick={() => setAsk('îți evaluăm soluția')}>Evaluează Soluția</button>
          </div>
        </>
      ) : (
        <button className="primary" disabled={!draft.text || busy(state) || !aiOn || !accepts(state, { type: 'submit' })} onClick={sub.evaluate} title={aiOn ? undefined : 'Evaluarea AI nu este configurată pe acest server'}>
          {state.name === 'checking' ? 'Verificare AI în curs...' : state.name === 'grading' ? 'Evaluare în curs...' : 'Evaluează Soluția'}
        </button>
      )}
      {graded && (
        <ResultCard
          ref={resultRef}
          result={graded}
          onRevise={() => {
            sub.revise();
            area.current?.focus();
          }}
          onReset={sub.reset}
        />
      )}
    </div>
  );
}
