import { useCallback, useEffect, useState } from 'react';
import { fetchAroundMe, fetchTop, type BoardRow, type Period, type Scope } from '../api/leaderboard';

export type LeaderboardState =
  | { status: 'loading' }
  | { status: 'error' }
  | { status: 'ready'; top: BoardRow[]; around: BoardRow[] };

const LOADING: LeaderboardState = { status: 'loading' };

// The board and "Poziția ta" for one period and scope, fetched together. Each answer is kept
// with the request it answers, so switching tabs shows "loading" rather than the previous
// tab's rows, and a late answer for a tab already left is never shown.
export function useLeaderboard(period: Period, scope: Scope) {
  const [attempt, setAttempt] = useState(0);
  const key = `${period}|${scope}|${attempt}`;
  const [result, setResult] = useState<{ key: string; state: LeaderboardState } | null>(null);
  useEffect(() => {
    let live = true;
    Promise.all([fetchTop(period, scope), fetchAroundMe(period, scope)]).then(
      ([top, around]) => live && setResult({ key, state: { status: 'ready', top, around } }),
      (err: unknown) => {
        console.error('leaderboard', err);
        if (live) setResult({ key, state: { status: 'error' } });
      },
    );
    return () => {
      live = false;
    };
  }, [key, period, scope]);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { state: result?.key === key ? result.state : LOADING, reload };
}
