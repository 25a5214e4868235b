import { useQuery } from '../../../lib/query';
import { browserNow } from './usePractice';
import { dueCount, fetchCategories, progress, type Category } from '../api/grile';

const NONE: Category[] = [];

export function useCategories(): Category[] {
  return useQuery(['grile-categories'], fetchCategories).data ?? NONE;
}

// How many grile are due now (the browser's clock); reload() after a session. 0 when the
// count cannot be read.
export function useDueCount(now: () => Date = browserNow) {
  const q = useQuery(['grile-due'], () => dueCount(now()));
  return { due: q.status === 'error' ? 0 : (q.data ?? null), reload: () => void q.refetch() };
}

// Progress per category; empty when it cannot be read.
export function useGrileProgress() {
  const q = useQuery(['grile-progress'], progress);
  return q.status === 'error' ? [] : (q.data ?? null);
}
