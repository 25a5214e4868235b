import { useState, type FormEvent } from 'react';
import { toast } from '../../../components/ui/toast';
import { updateGroup, type Group } from '../api/seminars';
import { GroupFieldsForm } from './GroupFieldsForm';

// "Editează grupa": the group's name, faculty, academic year and semester.
export function EditGroup({ group, onSaved }: { group: Group; onSaved: () => void }) {
  const [fields, setFields] = useState({ name: group.name, university_code: group.university_code, academic_year: group.academic_year, semester: group.semester });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await updateGroup(group.id, fields);
      toast.success('Grupa a fost actualizată');
      onSaved();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <details className="edit-group">
      <summary>Editează grupa</summary>
      <form onSubmit={save} aria-label="Editează grupa">
        <GroupFieldsForm value={fields} onChange={setFields} />
        {error && <p className="error" role="alert">{error}</p>}
        <div className="row">
          <button type="submit" className="primary" disabled={busy}>Salvează grupa</button>
        </div>
      </form>
    </details>
  );
}
