import type { CaseRow, Category } from '../api/cases';

// The sidebar's open path: at most one domain, one category in it and one subcategory in
// that (an accordion: opening one closes its siblings; clicking an open one closes it).
export type OpenPath = { domain?: string; category?: string; sub?: string };

export const toggleDomain = (open: OpenPath, domain: string): OpenPath => (open.domain === domain ? {} : { domain });

export const toggleCategory = (open: OpenPath, domain: string, category: string): OpenPath =>
  open.domain === domain && open.category === category ? { domain } : { domain, category };

export const toggleSub = (open: OpenPath, domain: string, category: string, sub: string): OpenPath =>
  open.domain === domain && open.category === category && open.sub === sub ? { domain, category } : { domain, category, sub };

// The path that shows a case picked from the search results.
export function pathTo(c: { domain: string; category: string | null; subcategory: string | null }, categories: Category[]): OpenPath {
  const cat = categories.find((x) => x.domain === c.domain && x.name === c.category);
  if (!cat) return { domain: c.domain };
  const sub = cat.law_subcategories.length ? (c.subcategory ?? undefined) : cat.name;
  return { domain: c.domain, category: cat.id, sub };
}

// The subcategories listed under a category; a category without any lists its cases
// under one entry named like itself.
export const subcategoriesOf = (c: Category) => (c.law_subcategories.length ? c.law_subcategories : [{ name: c.name, position: 0 }]);

export function casesIn(cases: CaseRow[], domain: string, c: Category, sub: string): CaseRow[] {
  return cases.filter((x) => x.domain === domain && x.category === c.name && (c.law_subcategories.length ? x.subcategory === sub : true));
}
