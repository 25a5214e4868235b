import type { GenDomain } from '../../../lib/caseDraft';
import { useQuery } from '../../../lib/query';
import { fetchCategories, type CategoryRow } from '../api/cases';

const NONE: CategoryRow[] = [];

// The chosen domain's categories with their subcategories; empty while none is chosen or loading.
export function useCategories(domain: GenDomain | null): CategoryRow[] {
  return useQuery(domain ? ['generator-categories', domain] : null, () => fetchCategories(domain!)).data ?? NONE;
}
