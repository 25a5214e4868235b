import { useEffect } from 'react';
import { useUserId } from '../../../lib/auth/store';
import { invalidateQueries, useQuery } from '../../../lib/query';
import { caseAssignment, staffCriteria, watchAssignmentWork, type StaffCriterion } from '../api/assignment';

const NONE: StaffCriterion[] = [];

// The seminar assignment on a case and the student's standing on it, kept live (work
// handed in, the AI's grade, the assistant's grade and comment).
export function useCaseAssignment(caseId: string) {
  const userId = useUserId();
  const key = ['case-assignment', userId, caseId];
  const q = useQuery(userId ? key : null, async () => {
    const a = await caseAssignment(caseId);
    const criteria = a?.grade_source === 'staff' && a.submission_id ? await staffCriteria(a.submission_id) : NONE;
    return { assignment: a, criteria };
  });
  const assignment = q.data?.assignment ?? null;
  // Only a case set as an assignment is followed live.
  const followed = !!assignment;
  useEffect(() => {
    if (!userId || !followed) return;
    return watchAssignmentWork(userId, caseId, () => invalidateQueries(['case-assignment', userId, caseId]));
  }, [userId, caseId, followed]);
  return { assignment, criteria: q.data?.criteria ?? NONE, loaded: q.status !== 'loading' };
}
