import { useCallback, useEffect, useRef, useState } from 'react';
import { useQuery } from '../../../lib/query';
import { MIN_USERNAME, usernameWellFormed, type UsernameStatus } from '../../../lib/validation';
import { checkUsername, fetchUniversities, type University } from '../api/auth';

// The fixed university list, in its order.
const NO_UNIVERSITIES: University[] = [];
export function useUniversities(): University[] {
  return useQuery(['universities'], fetchUniversities).data ?? NO_UNIVERSITIES;
}

// Live availability of a username from 3 characters (debounced 300 ms). settle() gives the
// status of the current name once its check is over, checking at once if it is still
// pending, so a form submits only on a settled answer (issue 19, bug 1).
export function useUsernameCheck(username: string) {
  const [checked, setChecked] = useState<{ name: string; status: UsernameStatus } | null>(null);
  const seq = useRef(0);
  const latest = useRef<{ name: string; result: Promise<UsernameStatus> } | null>(null);
  const u = username.trim();
  // A malformed name is never sent to the availability check (it would answer "taken").
  const wellFormed = usernameWellFormed(u);
  const status: UsernameStatus = u.length < MIN_USERNAME ? 'unknown' : !wellFormed ? 'invalid' : checked?.name === u ? checked.status : 'checking';
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
    if (u.length < MIN_USERNAME || !wellFormed) return;
    const t = setTimeout(() => void run(u), 300);
    return () => clearTimeout(t);
  }, [u, wellFormed, run]);
  const settle = useCallback(async (): Promise<UsernameStatus> => {
    if (u.length < MIN_USERNAME) return 'unknown';
    if (!usernameWellFormed(u)) return 'invalid';
    if (latest.current?.name === u) return latest.current.result;
    return run(u);
  }, [u, run]);
  // What the server said at submit time (e.g. taken in the meantime).
  const setStatus = useCallback((next: UsernameStatus) => setChecked({ name: u, status: next }), [u]);
  return { status, setStatus, settle };
}
