import { useState } from 'react';
import { useQuery } from '../../../lib/query';
import { Failed } from '../../../components/ui/status';
import { toast } from '../../../components/ui/toast';
import { strictnessLabel } from '../../../lib/score';
import { confirmBlock, loadAppeals, releaseAppeal, type AppealRow } from '../api/review';
import { ArrowLeftIcon } from '../../../components/ui/icons';
import { countOf } from '../../../lib/plural';

const fmtDate = (iso: string) => new Date(iso).toLocaleString('ro-RO', { dateStyle: 'long', timeStyle: 'short' });
const errText = (e: unknown) => (e as { message?: string })?.message || 'Eroare necunoscută';

// "4 min 05 s" for the time from the first keystroke to submission.
export function duration(ms: number | null): string {
  if (ms == null) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

// What the editor recorded while the student wrote (counts only).
function Signals({ a }: { a: AppealRow }) {
  if (a.chars_typed == null) return <p className="muted">Nu există semnale de redactare pentru această soluție.</p>;
  const total = (a.chars_typed ?? 0) + (a.chars_pasted ?? 0);
  const share = total ? Math.round((100 * (a.chars_pasted ?? 0)) / total) : 0;
  return (
    <table className="table signals" aria-label="Semnale de redactare">
      <tbody>
        <tr><th>Caractere tastate</th><td>{a.chars_typed}</td></tr>
        <tr><th>Caractere lipite</th><td>{a.chars_pasted} ({share}% din text)</td></tr>
        <tr><th>Lipiri</th><td>{a.paste_events}</td></tr>
        <tr><th>Cea mai mare lipire</th><td>{a.largest_paste} caractere</td></tr>
        <tr><th>De la prima tastă la trimitere</th><td>{duration(a.ms_to_submit)}</td></tr>
      </tbody>
    </table>
  );
}

function AppealDetail({ a, onDone }: { a: AppealRow; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<void>, done: string) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      toast.success(done);
      onDone();
    } catch (e) {
      setError(errText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="appeal-title">
      <h2 id="appeal-title">
        {a.case_code} — {a.case_title}
      </h2>
      <p className="muted">
        Student: {a.student_username ?? 'necunoscut'} · solicitat la {fmtDate(a.requested_at)} · {strictnessLabel(a.difficulty_rating)}
      </p>
      <h3>Verdictul detectorului</h3>
      <p>
        Probabilitate de text generat de AI: {a.ai_probability == null ? '—' : `${Math.round(Number(a.ai_probability))}%`}
        {a.ai_decision ? ` · decizie ${a.ai_decision}` : ''}
      </p>
      <blockquote className="justification">{a.ai_justification || 'Fără justificare.'}</blockquote>
      <h3>Semnale de redactare</h3>
      <Signals a={a} />
      <h3>Soluția studentului</h3>
      <pre className="submission-text">{a.submission_text}</pre>
      {error && <p className="error" role="alert">{error}</p>}
      <div className="row">
        <button type="button" className="primary" disabled={busy} onClick={() => run(() => releaseAppeal(a.id), 'Soluția a fost eliberată pentru evaluare')}>
          Eliberează pentru evaluare
        </button>
      </div>
      <div className="field">
        <label htmlFor="appeal-reason">Motivul confirmării blocării</label>
        <textarea id="appeal-reason" rows={3} maxLength={2000} value={reason} onChange={(e) => setReason(e.target.value)} />
      </div>
      <button
        type="button"
        disabled={busy}
        onClick={() => (reason.trim() ? run(() => confirmBlock(a.id, reason.trim()), 'Blocarea a fost confirmată') : setError('Motivul confirmării este obligatoriu'))}
      >
        Confirmă blocarea
      </button>
    </section>
  );
}

// The moderators' queue of blocked AI checks whose students asked for a human check,
// beside the case review queue. The RPCs check the role in the database.
export function Appeals() {
  const q = useQuery(['review-appeals'], loadAppeals);
  const rows = q.data ?? null;
  const failed = q.status === 'error' ? errText(q.error) : null;
  const [open, setOpen] = useState<AppealRow | null>(null);
  const reload = () => void q.refetch();
  return (
    <section className="appeals" aria-labelledby="appeals-title">
      <h2 id="appeals-title">Verificări umane solicitate</h2>
      {failed && <Failed message={`Nu s-au putut încărca cererile: ${failed}`} onRetry={reload} />}
      {open ? (
        <>
          <button type="button" onClick={() => setOpen(null)}><ArrowLeftIcon /> Înapoi la cereri</button>
          <AppealDetail
            key={open.id}
            a={open}
            onDone={() => {
              setOpen(null);
              reload();
            }}
          />
        </>
      ) : (
        <section className="card">
          {!rows && !failed && <p className="muted">Se încarcă...</p>}
          {rows && rows.length === 0 && <p className="muted">Nu există cereri de verificare umană.</p>}
          {rows && rows.length > 0 && (
            <table className="table">
              <caption className="muted">{countOf(rows.length, 'cerere', 'cereri')} în așteptare, cele mai vechi primele</caption>
              <thead>
                <tr>
                  <th>Caz</th>
                  <th>Student</th>
                  <th>Probabilitate AI</th>
                  <th>Solicitat la</th>
                  <th><span className="sr-only">Acțiune</span></th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <td>{r.case_code}</td>
                    <td>{r.student_username ?? '—'}</td>
                    <td>{r.ai_probability == null ? '—' : `${Math.round(Number(r.ai_probability))}%`}</td>
                    <td>{fmtDate(r.requested_at)}</td>
                    <td>
                      <button type="button" aria-label={`Deschide cererea pentru ${r.case_code} de la ${r.student_username ?? 'student'}`} onClick={() => setOpen(r)}>
                        Deschide
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
    </section>
  );
}
