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

// The subcategories listed under a category: the catalogue's, then (after them, by name)
// the free-text ones that generated cases carry (the generator's "Altă subcategorie"), so
// every case of the category is reachable from the tree. A category without any lists its
// cases under one entry named like itself.
export function subcategoriesOf(c: Category, cases: CaseRow[] = []): { name: string; position: number }[] {
  if (!c.law_subcategories.length) return [{ name: c.name, position: 0 }];
  const known = new Set(c.law_subcategories.map((s) => s.name));
  const extra = [...new Set(cases.filter((x) => x.domain === c.domain && x.category === c.name && x.subcategory && !known.has(x.subcategory)).map((x) => x.subcategory!))]
    .sort((a, b) => a.localeCompare(b, 'ro'))
    .map((name, i) => ({ name, position: c.law_subcategories.length + i }));
  return [...c.law_subcategories, ...extra];
}

export function casesIn(cases: CaseRow[], domain: string, c: Category, sub: string): CaseRow[] {
  return cases.filter((x) => x.domain === domain && x.category === c.name && (c.law_subcategories.length ? x.subcategory === sub : true));
}
