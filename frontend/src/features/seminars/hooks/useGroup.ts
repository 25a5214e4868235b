import { useCallback, useEffect, useRef, useState } from 'react';
import { fetchAssignments, fetchCurrentCode, fetchGradebook, fetchGroup, fetchPeople, watchGroup, type Assignment, type Group, type JoinCode, type Person } from '../api/seminars';
import type { GradebookRow } from '../utils/gradebook';

export type GroupData = {
  group: Group | null | undefined;
  code: JoinCode | null;
  people: Person[];
  assignments: Assignment[];
  gradebook: GradebookRow[];
  live: boolean;
  error: string | null;
};

// Everything /seminar/<group> shows, read again whenever work lands, a grade is set or a
// member joins or leaves (one channel while the page is open).
export function useGroup(groupId: string) {
  const [data, setData] = useState<GroupData>({ group: undefined, code: null, people: [], assignments: [], gradebook: [], live: false, error: null });
  // Events come in bursts: only the latest read is shown, so an older answer arriving
  // late cannot overwrite a newer one.
  const seq = useRef(0);
  const load = useCallback(async () => {
    const mine = ++seq.current;
    try {
      const [group, code, people, assignments, gradebook] = await Promise.all([
        fetchGroup(groupId),
        fetchCurrentCode(groupId),
        fetchPeople(groupId),
        fetchAssignments(groupId),
        fetchGradebook(groupId),
      ]);
      if (mine === seq.current) setData((d) => ({ ...d, group, code, people, assignments, gradebook, error: null }));
    } catch (e) {
      if (mine === seq.current) setData((d) => ({ ...d, group: d.group ?? null, error: (e as Error).message }));
    }
  }, [groupId]);
  useEffect(() => {
    void load();
    const stop = watchGroup(
      groupId,
      () => void load(),
      () => {
        setData((d) => ({ ...d, live: true }));
        void load(); // what changed before the channel joined
      },
    );
    return () => {
      stop();
      setData((d) => ({ ...d, live: false }));
    };
  }, [groupId, load]);
  return { ...data, reload: load };
}
