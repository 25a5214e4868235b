import { useState, type FormEvent } from 'react';
import { toast } from '../../../components/ui/toast';
import { Dialog } from '../../../components/ui/dialog';
import { addTeacher, removeMember, removeTeacher, type Person } from '../api/seminars';
import { fmtWhen } from '../utils/time';

// The group's team (the owner adds co-teachers by username) and its members (staff remove
// them; former members stay listed, their earlier work too).
export function PeopleCard({ groupId, people, isOwner, onChange }: { groupId: string; people: Person[]; isOwner: boolean; onChange: () => void }) {
  const [username, setUsername] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Person | null>(null);
  const staff = people.filter((p) => p.kind !== 'member');
  const members = people.filter((p) => p.kind === 'member');
  const add = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await addTeacher(groupId, username.trim().replace(/^@/, ''));
      toast.success('Cadru didactic adăugat', username.trim());
      setUsername('');
      onChange();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const remove = async () => {
    const p = removing;
    setRemoving(null);
    if (!p) return;
    try {
      if (p.kind === 'member') await removeMember(groupId, p.user_id);
      else await removeTeacher(groupId, p.user_id);
      toast.success(p.kind === 'member' ? 'Student scos din grupă' : 'Cadru didactic scos din echipă', p.name);
      onChange();
    } catch (err) {
      toast.error('Nu s-a putut face schimbarea', (err as Error).message);
    }
  };
  return (
    <section className="card" aria-labelledby="people-title">
      <h2 id="people-title">Echipa și membrii</h2>
      <h3>Cadre didactice</h3>
      <ul className="list">
        {staff.map((p) => (
          <li key={p.user_id} className="group-row">
            <span>{p.name} <span className="muted">@{p.username} · {p.kind === 'owner' ? 'titular' : 'asistent'}</span></span>
            {isOwner && p.kind === 'teacher' && <button type="button" onClick={() => setRemoving(p)}>Scoate din echipă</button>}
          </li>
        ))}
      </ul>
      {isOwner && (
        <form onSubmit={add} className="row add-teacher">
          <label className="field">
            Adaugă un cadru didactic (nume de utilizator)
            <input value={username} onChange={(e) => setUsername(e.target.value)} required />
          </label>
          <button type="submit">Adaugă</button>
        </form>
      )}
      {error && <p className="error" role="alert">{error}</p>}
      <h3>Membri ({members.filter((m) => !m.left_at).length})</h3>
      {members.length === 0 && <p className="muted">Niciun student încă: trimite-le linkul de înscriere.</p>}
      <ul className="list">
        {members.map((p) => (
          <li key={`${p.user_id}-${p.joined_at}`} className={`group-row${p.left_at ? ' former' : ''}`} data-testid="member">
            <span>
              {p.name} <span className="muted">@{p.username} · înscris pe {fmtWhen(p.joined_at)}</span>
              {p.left_at && <span className="muted"> · {p.removed ? 'scos' : 'a ieșit'} pe {fmtWhen(p.left_at)}</span>}
            </span>
            {!p.left_at && <button type="button" onClick={() => setRemoving(p)}>Scoate din grupă</button>}
          </li>
        ))}
      </ul>
      <Dialog open={!!removing} onClose={() => setRemoving(null)} title={removing?.kind === 'member' ? 'Scoți studentul din grupă?' : 'Scoți cadrul didactic din echipă?'}>
        <p>
          {removing?.kind === 'member'
            ? `${removing.name} nu va mai vedea temele grupei, iar tu nu vei mai vedea ce predă de acum înainte. Lucrările predate până acum rămân.`
            : `${removing?.name} nu va mai vedea grupa și lucrările studenților.`}
        </p>
        <div className="row">
          <button type="button" onClick={() => setRemoving(null)}>Renunță</button>
          <button type="button" className="primary" onClick={remove}>Scoate</button>
        </div>
      </Dialog>
    </section>
  );
}
