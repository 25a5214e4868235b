import { lazy, Suspense } from 'react';
import Dashboard from '../../features/dashboard/components/Dashboard';

// The seminars' "Teme" is its own chunk, fetched once the empty dashboard shows.
const TemeSection = lazy(() => import('../../features/seminars/components/TemeSection'));

// /dashboard: the study screen, with the student's seminar assignments among the empty
// dashboard's sections (two features, composed here so neither imports the other).
export default function DashboardRoute() {
  return (
    <Dashboard
      teme={(openCase) => (
        <Suspense fallback={null}>
          <TemeSection onOpenCase={openCase} />
        </Suspense>
      )}
    />
  );
}
