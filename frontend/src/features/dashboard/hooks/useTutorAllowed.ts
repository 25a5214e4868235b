import { useQuery } from '../../../lib/query';
import { tutorAllowed } from '../api/tutorPolicy';

// False while a seminar assignment on the case forbids the tutor to the student.
export function useTutorAllowed(caseId: string | null): boolean {
  return useQuery(caseId ? ['tutor-allowed', caseId] : null, () => tutorAllowed(caseId!)).data ?? true;
}
