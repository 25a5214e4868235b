import { useEffect, useState } from 'react';
import { tutorAllowed } from '../api/tutorPolicy';

// False while a seminar assignment on the case forbids the tutor to the student.
export function useTutorAllowed(caseId: string | null): boolean {
  const [allowed, setAllowed] = useState<{ caseId: string | null; ok: boolean }>({ caseId: null, ok: true });
  useEffect(() => {
    if (!caseId) return;
    let live = true;
    tutorAllowed(caseId).then((ok) => live && setAllowed({ caseId, ok }));
    return () => {
      live = false;
    };
  }, [caseId]);
  return allowed.caseId !== caseId || allowed.ok;
}
