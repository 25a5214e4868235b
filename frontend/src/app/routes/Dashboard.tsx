import { lazy, Suspense } from 'react';
import Dashboard from '../../features/dashboard/components/Dashboard';
import { fetchMyAssignments, type MyAssignment } from '../../features/seminars/api/teme';
import { useUserId } from '../../lib/auth/store';
import { useQuery } from '../../lib/query';

// The seminars' "Teme" is its own chunk, fetched only when the student has assignments.
const TemeSection = lazy(() => import('../../features/seminars/components/TemeSection'));

const NONE: MyAssignment[] = [];

// /dashboard: the study screen, with the student's seminar assignments among the empty
// dashboard's sections (two features, composed here so neither imports the other).
export default function DashboardRoute() {
  const userId = useUserId();
  // A failed read shows no section; the study screen works without it.
  const teme = useQuery(userId ? ['seminar-teme', userId] : null, fetchMyAssignments).data ?? NONE;
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
