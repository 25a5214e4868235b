import { useEffect, useState } from 'react';
import { toast } from '../../../components/ui/toast';
import { fetchHidden, saveHidden } from '../api/leaderboard';

export type OptOutState = { hidden: boolean | null; saving: boolean; saved: boolean; failed: boolean };

// The "Nu mă afișa în clasamente" setting of the signed-in user: read once, saved at each
// change (no save button), with a toast and an inline status either way.
export function useLeaderboardOptOut(userId: string | undefined) {
  const [state, setState] = useState<OptOutState>({ hidden: null, saving: false, saved: false, failed: false });
  useEffect(() => {
    if (!userId) return;
    let live = true;
    fetchHidden(userId).then(
      (hidden) => live && setState((s) => ({ ...s, hidden })),
      (err: unknown) => {
        console.error('leaderboard opt-out', err);
        if (live) setState((s) => ({ ...s, failed: true }));
      },
    );
    return () => {
      live = false;
    };
  }, [userId]);

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
