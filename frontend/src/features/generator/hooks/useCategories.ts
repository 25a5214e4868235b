import { useEffect, useState } from 'react';
import type { GenDomain } from '../../../lib/caseDraft';
import { fetchCategories, type CategoryRow } from '../api/cases';

// The chosen domain's categories with their subcategories; empty while none is chosen or loading.
export function useCategories(domain: GenDomain | null): CategoryRow[] {
  const [rows, setRows] = useState<{ domain: GenDomain; rows: CategoryRow[] } | null>(null);
  useEffect(() => {
    if (!domain) return;
    let live = true;
    fetchCategories(domain).then((r) => {
      if (live) setRows({ domain, rows: r });
    });
    return () => {
      live = false;
    };
  }, [domain]);
  return rows && rows.domain === domain ? rows.rows : [];
}
