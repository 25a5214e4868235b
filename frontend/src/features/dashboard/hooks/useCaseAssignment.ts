import { useEffect, useState } from 'react';
import { useUserId } from '../../../lib/auth/store';
import { caseAssignment, staffCriteria, watchAssignmentWork, type CaseAssignment, type StaffCriterion } from '../api/assignment';

// The seminar assignment on a case and the student's standing on it, kept live (work
// handed in, the AI's grade, the assistant's grade and comment).
export function useCaseAssignment(caseId: string) {
  const userId = useUserId();
  const [assignment, setAssignment] = useState<CaseAssignment | null>(null);
  const [criteria, setCriteria] = useState<StaffCriterion[]>([]);
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    if (!userId) return;
    let live = true;
    let seq = 0;
    let watching: (() => void) | null = null;
    const load = async () => {
      const mine = ++seq;
      const a = await caseAssignment(caseId);
      const c = a?.grade_source === 'staff' && a.submission_id ? await staffCriteria(a.submission_id) : [];
      if (!live || mine !== seq) return;
      setAssignment(a);
      setCriteria(c);
      setLoaded(true);
      // Only a case set as an assignment is followed live.
      if (a && !watching) watching = watchAssignmentWork(userId, caseId, () => void load());
    };
    void load();
    return () => {
      live = false;
      watching?.();
    };
  }, [caseId, userId]);
  return { assignment, criteria, loaded };
}
