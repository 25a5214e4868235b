import { useEffect, useState } from 'react';
import { invalidateQueries, useQuery } from '../../../lib/query';
import { fetchAssignments, fetchCurrentCode, fetchGradebook, fetchGroup, fetchPeople, watchGroup } from '../api/seminars';

async function loadGroup(groupId: string) {
  const [group, code, people, assignments, gradebook] = await Promise.all([
    fetchGroup(groupId),
    fetchCurrentCode(groupId),
    fetchPeople(groupId),
    fetchAssignments(groupId),
    fetchGradebook(groupId),
  ]);
  return { group, code, people, assignments, gradebook };
}

// Everything /seminar/<group> shows, read again whenever work lands, a grade is set or a
// member joins or leaves (one channel while the page is open; lib/query drops a late answer).
export function useGroup(groupId: string) {
  const key = ['seminar-group', groupId];
  const q = useQuery(key, () => loadGroup(groupId));
  const [live, setLive] = useState(false);
  useEffect(() => {
    const reload = () => invalidateQueries(['seminar-group', groupId]);
    const stop = watchGroup(groupId, reload, () => {
      setLive(true);
      reload(); // what changed before the channel joined
    });
    return () => {
      stop();
      setLive(false);
    };
  }, [groupId]);
  const d = q.data;
  return {
    group: q.status === 'loading' ? undefined : (d?.group ?? null),
    code: d?.code ?? null,
    people: d?.people ?? [],
    assignments: d?.assignments ?? [],
    gradebook: d?.gradebook ?? [],
    live,
    error: q.status === 'error' ? (q.error as Error).message : null,
    reload: () => invalidateQueries(['seminar-group', groupId]),
  };
}
