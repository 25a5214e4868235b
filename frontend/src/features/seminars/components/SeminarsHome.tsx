import { useState, type FormEvent } from 'react';
import { invalidateQueries, useQuery } from '../../../lib/query';
import { Link, useNavigate } from 'react-router-dom';
import { useIsModerator, useUserId } from '../../../lib/auth/store';
import { toast } from '../../../components/ui/toast';
import { Dialog } from '../../../components/ui/dialog';
import { createGroup, fetchMyGroups, leaveGroup, SeminarError, type Group } from '../api/seminars';
import { GroupFieldsForm, emptyGroupFields } from './GroupFieldsForm';
import '../seminars.css';

// /seminar: the groups one teaches (and a new one, for teaching staff) and the groups one
// belongs to, each with "Părăsește grupa".
export default function SeminarsHome() {
  const userId = useUserId();
  const staff = useIsModerator();
  const nav = useNavigate();
  const q = useQuery(userId ? ['seminar-groups', userId] : null, () => fetchMyGroups(userId!));
  const groups = q.data ?? null;
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState(emptyGroupFields);
  const [busy, setBusy] = useState(false);
  const [leaving, setLeaving] = useState<Group | null>(null);
  const load = () => invalidateQueries(['seminar-groups']);
  const create = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const g = await createGroup(fields, null);
      toast.success('Grupa a fost creată', g.name);
      nav(`/seminar/${g.id}`);
    } catch (err) {
      setError((err as SeminarError).message);
    } finally {
      setBusy(false);
    }
  };
  const leave = async () => {
    const g = leaving;
    setLeaving(null);
    if (!g) return;
    try {
      await leaveGroup(g.id);
      toast.success('Ai părăsit grupa', g.name);
      load();
    } catch (err) {
      toast.error('Nu ai putut părăsi grupa', (err as Error).message);
    }
  };
  return (
    <main className="page seminar-page">
      <h1>Grupele mele de seminar</h1>
      {q.status === 'error' && <p className="error" role="alert">{(q.error as Error).message}</p>}
      {(staff || (groups?.teaching.length ?? 0) > 0) && (
        <section className="card" aria-labelledby="teaching-title">
          <h2 id="teaching-title">Grupe pe care le predai</h2>
          {groups && groups.teaching.length === 0 && <p className="muted">Nu ai încă nicio grupă.</p>}
          <ul className="list group-list">
            {groups?.teaching.map((g) => (
              <li key={g.id}>
                <Link to={`/seminar/${g.id}`}>{g.name}</Link> <span className="muted">· {g.academic_year}, semestrul {g.semester}</span>
              </li>
            ))}
          </ul>
          {staff && (
            <form onSubmit={create} className="group-form" aria-labelledby="new-group-title">
              <h3 id="new-group-title">Grupă nouă</h3>
              <GroupFieldsForm value={fields} onChange={setFields} />
              {error && <p className="error" role="alert">{error}</p>}
              <div className="row">
                <button type="submit" className="primary" disabled={busy}>Creează grupa</button>
              </div>
            </form>
          )}
        </section>
      )}
      <section className="card" aria-labelledby="member-title">
        <h2 id="member-title">Grupe în care ești înscris</h2>
        {groups && groups.member.length === 0 && (
          <p className="muted">Nu ești în nicio grupă. Cere-i asistentului linkul sau codul grupei.</p>
        )}
        <ul className="list group-list">
          {groups?.member.map((g) => (
            <li key={g.id} className="group-row">
              <span>
                <strong>{g.name}</strong> <span className="muted">· {g.academic_year}, semestrul {g.semester}</span>
              </span>
              <button type="button" onClick={() => setLeaving(g)}>Părăsește grupa</button>
            </li>
          ))}
        </ul>
      </section>
      <Dialog open={!!leaving} onClose={() => setLeaving(null)} title="Părăsești grupa?">
        <p>După ce părăsești grupa {leaving?.name}, asistentul nu mai vede ce predai de acum înainte. Ce ai predat până acum rămâne la el.</p>
        <div className="row">
          <button type="button" onClick={() => setLeaving(null)}>Rămâi în grupă</button>
          <button type="button" className="primary" onClick={leave}>Părăsește grupa</button>
        </div>
      </Dialog>
    </main>
  );
}
