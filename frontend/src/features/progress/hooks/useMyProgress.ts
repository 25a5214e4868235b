import { useEffect } from 'react';
import { invalidateQueries, useQuery } from '../../../lib/query';
import {
  fetchAppeals,
  fetchCaseProgress,
  fetchConversations,
  fetchGraded,
  fetchSubmissions,
  watchMyProgress,
  type AppealState,
} from '../api/progress';

const NONE: never[] = [];

// Everything My Progress shows of one student, read again whenever a grade or an appeal
// decision lands.
export function useMyProgress(userId: string | null) {
  const key = (part: string) => (userId ? ['my-progress', userId, part] : null);
  const subs = useQuery(key('submissions'), () => fetchSubmissions(userId!)).data ?? NONE;
  const graded = useQuery(key('graded'), () => fetchGraded(userId!)).data ?? NONE;
  const appealList = useQuery(key('appeals'), () => fetchAppeals(userId!)).data;
  const convs = useQuery(key('conversations'), () => fetchConversations(userId!)).data ?? NONE;
  const progress = useQuery(key('case-progress'), () => fetchCaseProgress(userId!)).data ?? NONE;
  useEffect(() => {
    if (!userId) return;
    return watchMyProgress(userId, () => invalidateQueries(['my-progress', userId]));
  }, [userId]);
  const appeals = new Map<string, AppealState>((appealList ?? []).map((a) => [a.submission_id, a]));
  return { subs, convs, progress, graded, appeals };
}
