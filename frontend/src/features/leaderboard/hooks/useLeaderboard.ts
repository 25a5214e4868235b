import { useEffect } from 'react';
import { useQuery } from '../../../lib/query';
import { fetchAroundMe, fetchTop, type BoardRow, type Period, type Scope } from '../api/leaderboard';

export type LeaderboardState =
  | { status: 'loading' }
  | { status: 'error' }
  | { status: 'ready'; top: BoardRow[]; around: BoardRow[] };

const LOADING: LeaderboardState = { status: 'loading' };

// The board and "Poziția ta" for one period and scope, fetched together. Answers are kept by
// tab (lib/query): switching tabs shows "loading" (or that tab's last rows) rather than the
// previous tab's, and a late answer for a tab already left is never shown.
export function useLeaderboard(period: Period, scope: Scope) {
  const q = useQuery(['leaderboard', period, scope], () => Promise.all([fetchTop(period, scope), fetchAroundMe(period, scope)]));
  useEffect(() => {
    if (q.status === 'error') console.error('leaderboard', q.error);
  }, [q.status, q.error]);
  const state: LeaderboardState =
    q.status === 'error' ? { status: 'error' } : q.data ? { status: 'ready', top: q.data[0], around: q.data[1] } : LOADING;
  return { state, reload: () => void q.refetch() };
}
