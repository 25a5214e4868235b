import { useMemo } from 'react';
import { MAX_USERNAME, type UsernameStatus } from '../../../lib/validation';
import type { University } from '../api/auth';


export function UsernameStatusText({ status }: { status: UsernameStatus }) {
  return (
    <span id="username-status" className={`username-${status}`} aria-live="polite">
      {status === 'checking' && 'Se verifică...'}
      {status === 'available' && 'Disponibil'}
      {status === 'taken' && 'Indisponibil'}
      {status === 'invalid' && `Nume nevalid: doar litere fără diacritice, cifre și _, cel mult ${MAX_USERNAME} de caractere`}
    </span>
  );
}

export function UniversitySelect({ unis, value, onChange, invalid }: { unis: University[]; value: string; onChange: (e: { target: { value: string } }) => void; invalid?: boolean }) {
  const groups = useMemo(
    () => [
      ['Public Universities', unis.filter((u) => u.category === 'Public')],
      ['Private Universities', unis.filter((u) => u.category === 'Private')],
      ['Other', unis.filter((u) => u.category === 'Other')],
    ] as const,
    [unis],
  );
  return (
    <select value={value} onChange={onChange} {...(invalid ? { 'aria-invalid': true, 'aria-describedby': 'signup-error' } : {})}>
      <option value="">Alege universitatea</option>
      {groups.map(([label, list]) => (
        <optgroup key={label} label={label}>
          {list.map((u) => (
            <option key={u.code} value={u.code}>{u.name}</option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}
