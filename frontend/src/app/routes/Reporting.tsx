import Reporting from '../../features/progress/components/Reporting';
import { GrileProgress } from '../../features/grile/components/GrileProgress';

// /reporting: My Progress with the grile's progress among its sections (two features,
// composed here so neither imports the other).
export default function ReportingRoute() {
  return <Reporting grile={<GrileProgress />} />;
}
