import { Link } from 'react-router-dom';
import { useUserId } from '../../../lib/auth/store';
import { useQuery } from '../../../lib/query';
import { Failed } from '../../../components/ui/status';
import { fetchMyGeneratedCases, type GeneratedCase as Row } from '../api/progress';

const STATUS: Record<string, { label: string; cls: string }> = {
  verified: { label: 'Verificat', cls: 'badge verified' },
  rejected: { label: 'Respins', cls: 'badge rejected' },
  pending: { label: 'Neverificat', cls: 'badge' },
};

// My Progress: the cases the student generated, with their review status (and the
// moderator's reason when rejected).
export function MyGeneratedCases() {
  const userId = useUserId();
  const q = useQuery(userId ? ['my-generated-cases', userId] : null, fetchMyGeneratedCases);
  const rows: Row[] | undefined = q.data;
  return (
    <section className="card" aria-labelledby="my-generated-title">
      <h2 id="my-generated-title">Cazurile mele generate</h2>
      {q.status === 'error' && <Failed message="Cazurile generate nu au putut fi încărcate." onRetry={() => void q.refetch()} />}
      {rows && rows.length === 0 && (
        <p className="muted">
          Nu ai generat încă niciun caz. <Link to="/case-generator">Generează un caz</Link>
        </p>
      )}
      <ul className="list">
        {rows?.map((r) => {
          const s = STATUS[r.status] ?? STATUS.pending;
          return (
            <li key={r.id} data-testid="generated-case">
              <strong>{r.case_code}</strong> <span className={s.cls}>{s.label}</span> · {new Date(r.created_at).toLocaleDateString('ro-RO', { day: 'numeric', month: 'long', year: 'numeric' })}
              <div>{r.title}</div>
              {r.status === 'rejected' && r.rejection_reason && <div className="muted">Motivul respingerii: {r.rejection_reason}</div>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
