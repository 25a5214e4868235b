import { lazy, Suspense, useEffect, useState } from 'react';
import Dashboard from '../../features/dashboard/components/Dashboard';
import { fetchMyAssignments, type MyAssignment } from '../../features/seminars/api/teme';
import { useUserId } from '../../lib/auth/store';

// The seminars' "Teme" is its own chunk, fetched only when the student has assignments.
const TemeSection = lazy(() => import('../../features/seminars/components/TemeSection'));

// /dashboard: the study screen, with the student's seminar assignments among the empty
// dashboard's sections (two features, composed here so neither imports the other).
export default function DashboardRoute() {
  const userId = useUserId();
  const [teme, setTeme] = useState<MyAssignment[]>([]);
  useEffect(() => {
    if (!userId) return;
    let live = true;
    fetchMyAssignments().then(
      (l) => live && setTeme(l),
      () => {}, // no section then; the study screen works without it
    );
    return () => {
      live = false;
    };
  }, [userId]);
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
