import { useEffect, useState } from 'react';
import type { Attempt } from '../utils/attempts';
import type { GradedWork } from '../components/CriteriaOverview';
import {
  fetchAppeals,
  fetchCaseProgress,
  fetchConversations,
  fetchGraded,
  fetchSeminarWork,
  fetchSubmissions,
  watchMyProgress,
  type AppealState,
  type Conv,
  type Progress,
  type SeminarWork,
} from '../api/progress';

// Everything My Progress shows of one student, read again whenever a grade (the AI's or
// the seminar assistant's) or an appeal decision lands.
export function useMyProgress(userId: string | null) {
  const [subs, setSubs] = useState<Attempt[]>([]);
  const [convs, setConvs] = useState<Conv[]>([]);
  const [progress, setProgress] = useState<Progress[]>([]);
  const [graded, setGraded] = useState<GradedWork[]>([]);
  const [appeals, setAppeals] = useState<Map<string, AppealState>>(new Map());
  const [seminar, setSeminar] = useState<Map<string, SeminarWork>>(new Map());
  useEffect(() => {
    if (!userId) return;
    const load = () => {
      fetchSubmissions(userId).then(setSubs);
      fetchGraded(userId).then(setGraded);
      fetchAppeals(userId).then((list) => setAppeals(new Map(list.map((a) => [a.submission_id, a]))));
      fetchConversations(userId).then(setConvs);
      fetchSeminarWork(userId).then(setSeminar);
      fetchCaseProgress(userId).then(setProgress);
    };
    load();
    return watchMyProgress(userId, load);
  }, [userId]);
  return { subs, convs, progress, graded, appeals, seminar };
}
