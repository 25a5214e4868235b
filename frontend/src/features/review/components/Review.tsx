import { useState } from 'react';
import { useQuery } from '../../../lib/query';
import { Failed, Pending } from '../../../components/ui/status';
import { Link } from 'react-router-dom';
import { useIsModerator } from '../../../lib/auth/store';
import { toast } from '../../../components/ui/toast';
import { CaseEditor } from '../../../components/case-editor/CaseEditor';
import { joinMessages, validateDraft, type Draft } from '../../../lib/caseDraft';
import { checkReference, loadDraft, loadQueue, rejectCase, updateCase, verifyCase, type ArticleCheck, type QueueRow } from '../api/review';
import { Appeals } from './Appeals';
import { ArrowLeftIcon, CheckIcon, WarningIcon } from '../../../components/ui/icons';
import { countOf } from '../../../lib/plural';

const fmtDate = (iso: string) => new Date(iso).toLocaleString('ro-RO', { dateStyle: 'long', timeStyle: 'short' });
const errText = (e: unknown) => (e as { message?: string })?.message || 'Eroare necunoscută';

// The cited articles resolved against the codes; unknown ones flagged.
function ArticleStatus({ checks }: { checks: ArticleCheck[] | undefined }) {
  if (!checks) return <span className="muted"> se verifică...</span>;
  return (
    <span className="article-check">
      {checks.map((c) =>
        c.found ? (
          <details key={c.number} className="found">
            <summary><CheckIcon /> Art. {c.number}{c.title ? ` – ${c.title}` : ''}</summary>
            <p className="article-text">{c.body}</p>
          </details>
        ) : (
          <span key={c.number} className="error"> <WarningIcon /> Articol negăsit în cod: {c.number}</span>
        ),
      )}
    </span>
  );
}

function ReviewCase({ row, onDone }: { row: QueueRow; onDone: () => void }) {
  // The loaded case, then the moderator's edits (null until the first edit).
  const loaded = useQuery(['review-draft', row.id], () => loadDraft(row.id), { gcTime: 0 });
  const [edited, setEdited] = useState<Draft | null>(null);
  const draft = edited ?? loaded.data ?? null;
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  // The cited articles resolved against the codes, re-checked when the list of references changes.
  const refs = draft?.articles.map((a) => a.reference) ?? [];
  const domain = draft?.domain;
  const checked = useQuery(draft ? ['article-checks', domain, refs] : null, () =>
    Promise.all(refs.map(async (r) => [r, await checkReference(r, domain!)] as const)),
  );
  const checks: Record<string, ArticleCheck[]> = Object.fromEntries(checked.data ?? []);

  if (loaded.data === null || (!draft && loaded.status === 'error')) return <Failed message="Cazul nu a putut fi încărcat." onRetry={() => void loaded.refetch()} />;
  if (!draft) return <Pending />;

  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (e) {
      const err = e as { code?: string; message?: string };
      setError(err.code === '23505' ? `Codul cazului "${draft.case_code.trim().toUpperCase()}" există deja în baza de date. Te rog alege un alt cod.` : errText(e));
    } finally {
      setBusy(false);
    }
  };
  const valid = () => {
    const problems = validateDraft(draft);
    if (problems.length) setError(joinMessages(problems));
    return problems.length === 0;
  };
  const save = () =>
    valid() &&
    run(async () => {
      await updateCase(row.id, draft);
      setDirty(false);
      toast.success('Modificările au fost salvate');
    });
  const verify = () =>
    valid() &&
    run(async () => {
      if (dirty) await updateCase(row.id, draft);
      await verifyCase(row.id);
      toast.success('Caz verificat', `${draft.case_code.trim().toUpperCase()} este acum Verificat.`);
      onDone();
    });
  const reject = () => {
    if (!reason.trim()) return setError('Motivul respingerii este obligatoriu');
    return run(async () => {
      await rejectCase(row.id, reason.trim());
      toast.success('Caz respins', 'Autorul vede motivul pe pagina Progress.');
      onDone();
    });
  };
  const unknown = Object.entries(checks).filter(([ref, c]) => draft.articles.some((a) => a.reference === ref) && c.some((x) => !x.found)).length;

  return (
    <section className="card" aria-labelledby="review-case-title">
      <h2 id="review-case-title">
        {row.case_code} <span className="badge">Neverificat</span>
      </h2>
      <p className="muted">
        Autor: {row.author_username ?? 'necunoscut'} · generat la {fmtDate(row.created_at)}
      </p>
      {unknown > 0 && <p className="banner" role="status">Atenție: referințe negăsite în coduri: {unknown}.</p>}
      <CaseEditor
        draft={draft}
        onChange={(d) => {
          setEdited(d);
          setDirty(true);
        }}
        articleExtra={(ref) => <ArticleStatus checks={checks[ref]} />}
      />
      {error && <p className="error" role="alert">{error}</p>}
      <div className="row">
        <button type="button" disabled={busy || !dirty} onClick={save}>Salvează modificările</button>
        <button type="button" className="primary" disabled={busy} onClick={verify}>Marchează ca verificat</button>
      </div>
      <div className="field">
        <label htmlFor="review-reason">Motivul respingerii</label>
        <textarea id="review-reason" rows={3} maxLength={2000} value={reason} onChange={(e) => setReason(e.target.value)} />
      </div>
      <button type="button" disabled={busy} onClick={reject}>Respinge cazul</button>
    </section>
  );
}

// /review: the moderators' queue of generated cases. The RPCs check the role in the
// database; the page only mirrors it.
export default function Review() {
  const allowed = useIsModerator();
  const queue = useQuery(allowed ? ['review-queue'] : null, loadQueue);
  const rows = queue.data ?? null;
  const failed = queue.status === 'error' ? errText(queue.error) : null;
  const [open, setOpen] = useState<QueueRow | null>(null);
  const reload = () => void queue.refetch();

  if (!allowed) {
    return (
      <main className="page">
        <section className="card">
          <h1>Access Denied</h1>
          <p>You do not have permission to access this page.</p>
          <Link to="/dashboard"><ArrowLeftIcon /> Înapoi la spețe</Link>
        </section>
      </main>
    );
  }
  return (
    <main className="page review">
      <Link to="/dashboard"><ArrowLeftIcon /> Înapoi la spețe</Link>
      <h1>Cazuri de verificat</h1>
      {failed && <Failed message={`Nu s-au putut încărca cazurile: ${failed}`} onRetry={reload} />}
      {open ? (
        <>
          <button type="button" onClick={() => setOpen(null)}><ArrowLeftIcon /> Înapoi la listă</button>
          <ReviewCase
            key={open.id}
            row={open}
            onDone={() => {
              setOpen(null);
              reload();
            }}
          />
        </>
      ) : (
        <section className="card">
          {!rows && !failed && <Pending />}
          {rows && rows.length === 0 && <p className="muted">Nu există cazuri de verificat.</p>}
          {rows && rows.length > 0 && (
            <table className="table">
              <caption className="muted">{countOf(rows.length, 'caz neverificat', 'cazuri neverificate')}, cele mai noi primele</caption>
              <thead>
                <tr>
                  <th>Cod</th>
                  <th>Titlu</th>
                  <th>Autor</th>
                  <th>Generat la</th>
                  <th><span className="sr-only">Acțiuni</span></th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <td>{r.case_code}</td>
                    <td>{r.title}</td>
                    <td>{r.author_username ?? '—'}</td>
                    <td>{fmtDate(r.created_at)}</td>
                    <td>
                      <button type="button" aria-label={`Deschide ${r.case_code}`} onClick={() => setOpen(r)}>Deschide</button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
      {!open && <Appeals />}
    </main>
  );
}
