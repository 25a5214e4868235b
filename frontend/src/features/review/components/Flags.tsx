import { useEffect, useRef, useState } from 'react';
import { useQuery } from '../../../lib/query';
import { Failed } from '../../../components/ui/status';
import { toast } from '../../../components/ui/toast';
import { strictnessLabel } from '../../../lib/score';
import { countOf } from '../../../lib/plural';
import { ArrowLeftIcon } from '../../../components/ui/icons';
import { loadFlagged, resolveFlags, type FlagReason, type FlaggedRow } from '../api/review';

const fmtDate = (iso: string) => new Date(iso).toLocaleString('ro-RO', { dateStyle: 'long', timeStyle: 'short' });
const errText = (e: unknown) => (e as { message?: string })?.message || 'Eroare necunoscută';

// What each reason means, as a moderator reads it.
export const FLAG_LABELS: Record<FlagReason, string> = {
  authorship_uncertain: 'Verificarea AI are îndoieli, dar nu a blocat soluția',
  score_lines_removed: 'Rânduri în formă de punctaj, eliminate înainte de evaluare',
  high_score_short_text: 'Cel puțin 90 de puncte pentru un text sub 250 de cuvinte',
  addresses_grader: 'Textul se adresează corectorului',
};

export const flagLabel = (reason: string) => FLAG_LABELS[reason as FlagReason] ?? reason;

// "78/100" for a graded submission; otherwise where it stands.
function gradeOf(r: FlaggedRow): string {
  if (r.status === 'graded' && r.score_value != null) return `${Math.round(Number(r.score_value))}/100`;
  return r.status === 'grading' ? 'în evaluare' : 'neevaluată încă';
}

function FlagDetail({ r, onDone }: { r: FlaggedRow; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const title = useRef<HTMLHeadingElement>(null);
  // Opening a submission moves the focus to it (keyboard and screen-reader users land on it).
  useEffect(() => title.current?.focus(), []);
  const resolve = async () => {
    setBusy(true);
    setError(null);
    try {
      await resolveFlags(r.flags.map((f) => f.id));
      toast.success('Semnalarea a fost rezolvată');
      onDone();
    } catch (e) {
      setError(errText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="flag-title" data-testid="flag-detail">
      <h3 id="flag-title" ref={title} tabIndex={-1}>
        {r.case_code} — {r.case_title}
      </h3>
      <p className="muted">
        Student: {r.student_username ?? 'necunoscut'} · trimisă la {fmtDate(r.submitted_at)} · {strictnessLabel(r.difficulty_rating)} · punctaj: {gradeOf(r)}
      </p>
      <h4>Motivele semnalării</h4>
      <ul className="flag-reasons">
        {r.flags.map((f) => (
          <li key={f.id}>
            <strong>{flagLabel(f.reason)}</strong>
            {f.detail && <p>{f.detail}</p>}
            {f.evidence.map((q, i) => (
              <blockquote key={i} className="justification">„{q}”</blockquote>
            ))}
          </li>
        ))}
      </ul>
      <h4>Soluția studentului</h4>
      <pre className="submission-text">{r.submission_text}</pre>
      {error && <p className="error" role="alert">{error}</p>}
      <button type="button" className="primary" disabled={busy} onClick={resolve}>
        Rezolvat
      </button>
    </section>
  );
}

// The submissions the grader flagged for a human (graded, not blocked), beside the case
// review queue and the appeals. The RPCs check the role in the database.
export function Flags() {
  const q = useQuery(['review-flags'], loadFlagged);
  const rows = q.data ?? null;
  const failed = q.status === 'error' ? errText(q.error) : null;
  const [open, setOpen] = useState<FlaggedRow | null>(null);
  const reload = () => void q.refetch();
  return (
    <section className="appeals flags" aria-labelledby="flags-title">
      <h2 id="flags-title">Soluții semnalate</h2>
      {failed && <Failed message={`Nu s-au putut încărca soluțiile semnalate: ${failed}`} onRetry={reload} />}
      {open ? (
        <>
          <button type="button" onClick={() => setOpen(null)}><ArrowLeftIcon /> Înapoi la soluțiile semnalate</button>
          <FlagDetail
            key={open.submission_id}
            r={open}
            onDone={() => {
              setOpen(null);
              reload();
            }}
          />
        </>
      ) : (
        <section className="card">
          {!rows && !failed && <p className="muted">Se încarcă...</p>}
          {rows && rows.length === 0 && <p className="muted">Nu există soluții semnalate.</p>}
          {rows && rows.length > 0 && (
            <div className="table-wrap">
              <table className="table card-table">
                <caption className="muted">{countOf(rows.length, 'soluție semnalată', 'soluții semnalate')}, cele mai vechi primele</caption>
                <thead>
                  <tr>
                    <th>Caz</th>
                    <th>Student</th>
                    <th>Punctaj</th>
                    <th>Motive</th>
                    <th><span className="sr-only">Acțiune</span></th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.submission_id}>
                      <td data-label="Caz">{r.case_code}</td>
                      <td data-label="Student" className="wrap">{r.student_username ?? '—'}</td>
                      <td data-label="Punctaj">{gradeOf(r)}</td>
                      <td data-label="Motive" className="wrap">{r.flags.map((f) => flagLabel(f.reason)).join('; ')}</td>
                      <td data-label="Acțiune">
                        <button type="button" aria-label={`Deschide soluția semnalată: ${r.case_code} de la ${r.student_username ?? 'student'}`} onClick={() => setOpen(r)}>
                          Deschide
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </section>
  );
}
