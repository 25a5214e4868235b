import { lazy, Suspense, useEffect } from 'react';
import Dashboard from '../../features/dashboard/components/Dashboard';
import { fetchMyTeme, watchMyTeme, type MyAssignment } from '../../features/seminars/api/teme';
import { useUserId } from '../../lib/auth/store';
import { invalidateQueries, useQuery } from '../../lib/query';

// The seminars' "Teme" is its own chunk, fetched only when the student has assignments.
const TemeSection = lazy(() => import('../../features/seminars/components/TemeSection'));

const NONE: MyAssignment[] = [];

// /dashboard: the study screen, with the student's seminar assignments among the empty
// dashboard's sections (two features, composed here so neither imports the other).
export default function DashboardRoute() {
  const userId = useUserId();
  // A failed read shows no section; the study screen works without it.
  const mine = useQuery(userId ? ['seminar-teme', userId] : null, () => fetchMyTeme(userId!)).data;
  const teme = mine?.list ?? NONE;
  const member = mine?.member ?? false;
  // A member's "Teme" follows new assignments and grades live, and reads again when the tab
  // is shown (an assignment that opened meanwhile writes no row).
  useEffect(() => {
    if (!userId || !member) return;
    const again = () => invalidateQueries(['seminar-teme', userId]);
    const onVisible = () => {
      if (document.visibilityState === 'visible') again();
    };
    const stop = watchMyTeme(userId, again);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stop();
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [userId, member]);
  return (
    <Dashboard
      teme={(openCase) =>
        teme.length > 0 && (
          <Suspense fallback={null}>
            <TemeSection list={teme} onOpenCase={openCase} />
          </Suspense>
        )
      }
    />
  );
}
