import { useEffect, useState } from 'react';
import { useQuery } from '../../../lib/query';
import { toast } from '../../../components/ui/toast';
import { fetchHidden, saveHidden } from '../api/leaderboard';

export type OptOutState = { hidden: boolean | null; saving: boolean; saved: boolean; failed: boolean };

// The "Nu mă afișa în clasamente" setting of the signed-in user: read once, saved at each
// change (no save button), with a toast and an inline status either way.
export function useLeaderboardOptOut(userId: string | undefined) {
  const stored = useQuery(userId ? ['leaderboard-hidden', userId] : null, () => fetchHidden(userId!));
  useEffect(() => {
    if (stored.status === 'error') console.error('leaderboard opt-out', stored.error);
  }, [stored.status, stored.error]);
  // What a change set (until the next change); before any, what the server has.
  const [changed, setState] = useState<OptOutState | null>(null);
  const state: OptOutState = changed ?? { hidden: stored.data ?? null, saving: false, saved: false, failed: stored.status === 'error' };

  const change = async (hidden: boolean) => {
    const before = state.hidden;
    setState({ hidden, saving: true, saved: false, failed: false });
    try {
      const stored = await saveHidden(hidden);
      setState({ hidden: stored, saving: false, saved: true, failed: false });
      toast.success(stored ? 'Nu mai apari în clasamente.' : 'Apari din nou în clasamente.');
    } catch (err) {
      console.error('leaderboard opt-out save', err);
      setState({ hidden: before, saving: false, saved: false, failed: true });
      toast.error('Setarea nu a putut fi salvată. Încearcă din nou.');
    }
  };
  return { ...state, change };
}
