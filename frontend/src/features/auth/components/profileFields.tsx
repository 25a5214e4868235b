import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { supabase } from '../../../lib/supabase';
import { likeLiteral, MIN_USERNAME, type UsernameStatus } from '../../../lib/validation';

export type University = { code: string; name: string; category: 'Public' | 'Private' | 'Other' };

// The fixed university list, in its order.
export function useUniversities(): University[] {
  const [unis, setUnis] = useState<University[]>([]);
  useEffect(() => {
    supabase().from('universities').select('code, name, category').order('position').then(({ data }) => setUnis((data as University[]) ?? []));
  }, []);
  return unis;
}

// One availability check: the spec's RPC, with its fallback lookup on error.
async function checkUsername(u: string): Promise<UsernameStatus> {
  const sb = supabase();
  const { data, error } = await sb.rpc('is_username_available', { p_username: u });
  if (!error) return data ? 'available' : 'taken';
  const fb = await sb.from('user_profiles').select('id').ilike('username', likeLiteral(u)).limit(1);
  return fb.error ? 'unknown' : fb.data && fb.data.length > 0 ? 'taken' : 'available';
}

// Live availability of a username from 3 characters (debounced 300 ms). settle() gives the
// status of the current name once its check is over, checking at once if it is still
// pending, so a form submits only on a settled answer (issue 19, bug 1).
export function useUsernameCheck(username: string) {
  const [checked, setChecked] = useState<{ name: string; status: UsernameStatus } | null>(null);
  const seq = useRef(0);
  const latest = useRef<{ name: string; result: Promise<UsernameStatus> } | null>(null);
  const u = username.trim();
  const status: UsernameStatus = u.length < MIN_USERNAME ? 'unknown' : checked?.name === u ? checked.status : 'checking';
  const run = useCallback((name: string) => {
    const my = ++seq.current;
    const result = checkUsername(name).then((next) => {
      if (my === seq.current) setChecked({ name, status: next });
      return next;
    });
    latest.current = { name, result };
    return result;
  }, []);
  useEffect(() => {
    seq.current++;
    latest.current = null;
    if (u.length < MIN_USERNAME) return;
    const t = setTimeout(() => void run(u), 300);
    return () => clearTimeout(t);
  }, [u, run]);
  const settle = useCallback(async (): Promise<UsernameStatus> => {
    if (u.length < MIN_USERNAME) return 'unknown';
    if (latest.current?.name === u) return latest.current.result;
    return run(u);
  }, [u, run]);
  // What the server said at submit time (e.g. taken in the meantime).
  const setStatus = useCallback((next: UsernameStatus) => setChecked({ name: u, status: next }), [u]);
  return { status, setStatus, settle };
}

export function UsernameStatusText({ status }: { status: UsernameStatus }) {
  return (
    <span id="username-status" className={`username-${status}`} aria-live="polite">
      {status === 'checking' && 'Se verifică...'}
      {status === 'available' && 'Disponibil'}
      {status === 'taken' && 'Indisponibil'}
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
