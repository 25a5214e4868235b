import { useEffect } from 'react';
import { invalidateQueries, useQuery } from '../../../lib/query';
import {
  fetchAppeals,
  fetchCaseProgress,
  fetchConversations,
  fetchGraded,
  fetchSeminarWork,
  fetchSubmissions,
  watchMyProgress,
  type AppealState,
  type SeminarWork,
} from '../api/progress';

const NONE: never[] = [];
const NO_WORK = new Map<string, SeminarWork>();

// Everything My Progress shows of one student, read again whenever a grade (the AI's or
// the seminar assistant's) or an appeal decision lands.
export function useMyProgress(userId: string | null) {
  const key = (part: string) => (userId ? ['my-progress', userId, part] : null);
  const subs = useQuery(key('submissions'), () => fetchSubmissions(userId!)).data ?? NONE;
  const graded = useQuery(key('graded'), () => fetchGraded(userId!)).data ?? NONE;
  const appealList = useQuery(key('appeals'), () => fetchAppeals(userId!)).data;
  const convs = useQuery(key('conversations'), () => fetchConversations(userId!)).data ?? NONE;
  const progress = useQuery(key('case-progress'), () => fetchCaseProgress(userId!)).data ?? NONE;
  const seminar = useQuery(key('seminar'), () => fetchSeminarWork(userId!)).data ?? NO_WORK;
  useEffect(() => {
    if (!userId) return;
    return watchMyProgress(userId, () => invalidateQueries(['my-progress', userId]));
  }, [userId]);
  const appeals = new Map<string, AppealState>((appealList ?? []).map((a) => [a.submission_id, a]));
  return { subs, convs, progress, graded, appeals, seminar };
}
