import { useQuery } from '../../../lib/query';
import { fetchUniversities, type GroupFields, type University } from '../api/seminars';
import { academicYear } from '../utils/time';

export const emptyGroupFields: GroupFields = { name: '', university_code: '', academic_year: academicYear(), semester: 1 };

// A group's name, faculty (the fixed list of the sign-up), academic year and semester.
export function GroupFieldsForm({ value, onChange }: { value: GroupFields; onChange: (v: GroupFields) => void }) {
  const unis: University[] = useQuery(['universities'], fetchUniversities).data ?? [];
  const set = (patch: Partial<GroupFields>) => onChange({ ...value, ...patch });
  return (
    <div className="form-grid">
      <label>
        Numele grupei
        <input value={value.name} onChange={(e) => set({ name: e.target.value })} placeholder="Drept civil, grupa 104" required maxLength={120} />
      </label>
      <label>
        Facultatea
        <select value={value.university_code} onChange={(e) => set({ university_code: e.target.value })} required>
          <option value="">Alege facultatea</option>
          {unis.map((u) => <option key={u.code} value={u.code}>{u.name}</option>)}
        </select>
      </label>
      <label>
        Anul universitar
        <input value={value.academic_year} onChange={(e) => set({ academic_year: e.target.value })} placeholder="2025-2026" required pattern="\d{4}-\d{4}" />
      </label>
      <label>
        Semestrul
        <select value={value.semester} onChange={(e) => set({ semester: Number(e.target.value) })}>
          <option value={1}>Semestrul 1</option>
          <option value={2}>Semestrul 2</option>
        </select>
      </label>
    </div>
  );
}
