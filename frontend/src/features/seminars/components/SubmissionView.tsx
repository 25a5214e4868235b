import { useEffect, useRef, useState } from 'react';
import { invalidateQueries, useQuery } from '../../../lib/query';
import { breakdownRows, scoreLabel, strictnessLabel, type CriterionRow } from '../../../lib/score';
import { toast } from '../../../components/ui/toast';
import { CloseIcon } from '../../../components/ui/icons';
import { confirmGrade, fetchSubmission, setGrade, type Context, type GradeOfRecord, type Submission } from '../api/seminars';
import { fmtNum } from '../utils/gradebook';
import { fmtWhen } from '../utils/time';
import { gradeChanges, type Edit } from '../utils/grading';

type Loaded = { sub: Submission; context: Context | null; grade: GradeOfRecord | null };

const AUTHORSHIP: Record<string, string> = {
  PASSED: 'trecută: nicio urmă de asistent AI',
  RELEASED: 'blocată, apoi eliberată de un moderator',
  FAILED: 'blocată: urme de asistent AI',
};

// One student's work on an assignment: the text, the AI's grade per criterion with its
// comments, the authorship check, the tutor rounds used; the assistant confirms the AI
// grade or sets their own per criterion, with a comment (the grade of record).
export function SubmissionView({ submissionId, onClose }: { submissionId: string; onClose: () => void }) {
  const q = useQuery(['seminar-submission', submissionId], () => fetchSubmission(submissionId), { gcTime: 0 });
  const data = q.data;
  const heading = useRef<HTMLHeadingElement>(null);
  const ready = !!data;
  useEffect(() => {
    if (ready) heading.current?.focus();
  }, [ready]);
  return (
    <section className="card submission-view" aria-labelledby="submission-title" data-testid="submission-view">
      <div className="card-head">
        <h2 id="submission-title" tabIndex={-1} ref={heading}>
          Lucrarea {data?.context ? `lui ${data.context.name}` : ''}
        </h2>
        <button type="button" className="close" aria-label="Închide lucrarea" onClick={onClose}><CloseIcon /></button>
      </div>
      {q.status === 'loading' && <p className="muted" role="status">Se încarcă...</p>}
      {q.status === 'error' && <p className="error" role="alert">{(q.error as Error).message}</p>}
      {/* The form starts again from each grade of record the server answers. */}
      {data && <GradeForm key={data.grade?.graded_at ?? 'ai'} data={data} onSaved={() => invalidateQueries(['seminar-submission', submissionId])} />}
    </section>
  );
}

function GradeForm({ data, onSaved }: { data: Loaded; onSaved: () => void }) {
  const rows: CriterionRow[] = breakdownRows(data.sub.score_breakdown);
  const [edits, setEdits] = useState<Record<string, Edit>>(() => {
    const rec = new Map(((data.grade?.criteria as { id: string; score: number; comment?: string | null }[] | null) ?? []).map((c) => [c.id, c]));
    return Object.fromEntries(rows.map((r) => [r.code, { score: String(rec.get(r.code)?.score ?? r.score ?? ''), comment: rec.get(r.code)?.comment ?? '' }]));
  });
  const [comment, setComment] = useState(data.grade?.comment ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (what: 'confirm' | 'set') => {
    setBusy(true);
    setError(null);
    try {
      if (what === 'confirm') await confirmGrade(data.sub.id, comment);
      else await setGrade(data.sub.id, gradeChanges(rows, edits), comment);
      toast.success(what === 'confirm' ? 'Nota AI a fost confirmată' : 'Nota a fost salvată', 'Studentul o vede imediat.');
      onSaved();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const graded = data.sub.status === 'graded';
  return (
    <>
      <dl className="group-facts">
        <dt>Predată</dt>
        <dd>{fmtWhen(data.sub.submitted_at)}{data.sub.late && <span className="badge late-badge">Întârziată</span>}</dd>
        {data.context && (<><dt>Încercarea</dt><dd>{data.context.attempt} din {data.context.attempts_allowed}</dd></>)}
        <dt>Verificarea autorului</dt>
        <dd data-testid="authorship">{data.sub.ai_decision ? (AUTHORSHIP[data.sub.ai_decision.toUpperCase()] ?? data.sub.ai_decision) : 'nefăcută încă'}{data.sub.ai_justification ? ` — ${data.sub.ai_justification}` : ''}</dd>
        <dt>Runde cu tutorele</dt>
        <dd data-testid="tutor-rounds">{data.context?.tutor_rounds_used ?? 0}</dd>
        <dt>Nota AI</dt>
        <dd>{scoreLabel(data.sub.score, data.sub.score_value)} · <span className="strictness-tag">{strictnessLabel(data.sub.difficulty_rating)}</span></dd>
        <dt>Nota de referință</dt>
        <dd data-testid="grade-of-record">
          {data.grade ? `${fmtNum(data.grade.score)}/100 · ${data.grade.source === 'staff' ? 'stabilită de asistent' : 'nota AI confirmată'} (${fmtWhen(data.grade.graded_at)})` : 'neconfirmată'}
        </dd>
      </dl>
      <h3>Textul studentului</h3>
      <pre className="submission-text">{data.sub.submission_text}</pre>
      {graded ? (
        <>
          <h3>Nota pe criterii</h3>
          <div className="table-wrap">
            <table className="grade-table">
              <thead>
                <tr><th scope="col">Criteriu</th><th scope="col">AI</th><th scope="col">Nota ta</th><th scope="col">Comentariu</th></tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.code}>
                    <th scope="row">
                      <span className="c-code">{r.code}</span> {r.label}
                      {r.comment && <p className="muted ai-comment">{r.comment}</p>}
                    </th>
                    <td>{r.score == null ? '—' : `${fmtNum(r.score)}/${r.max}`}</td>
                    <td>
                      <input
                        type="number"
                        min={0}
                        max={r.max}
                        step={0.5}
                        aria-label={`Nota ta la ${r.code} ${r.label} (din ${r.max})`}
                        value={edits[r.code]?.score ?? ''}
                        onChange={(e) => setEdits({ ...edits, [r.code]: { ...edits[r.code], score: e.target.value } })}
                      />
                    </td>
                    <td>
                      <input
                        aria-label={`Comentariul tău la ${r.code} ${r.label}`}
                        value={edits[r.code]?.comment ?? ''}
                        onChange={(e) => setEdits({ ...edits, [r.code]: { ...edits[r.code], comment: e.target.value } })}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <label>
            Comentariul tău pentru student
            <textarea rows={3} value={comment} onChange={(e) => setComment(e.target.value)} maxLength={4000} />
          </label>
          <div className="row">
            <button type="button" disabled={busy} onClick={() => run('confirm')}>Confirmă nota AI</button>
            <button type="button" className="primary" disabled={busy} onClick={() => run('set')}>Salvează nota mea</button>
          </div>
        </>
      ) : (
        <p className="muted">Lucrarea nu a fost încă evaluată de AI; o poți nota după evaluare.</p>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </>
  );
}
