import { useEffect, useMemo, useRef } from 'react';
import { stripCasePrefix } from '../../../lib/validation';
import { CheckIcon, ChevronRightIcon } from '../../../components/ui/icons';
import { levelColor, type CaseRow, type Category, type TreeData } from '../api/cases';
import { casesIn, subcategoriesOf, toggleCategory, toggleDomain, toggleSub, type OpenPath } from '../utils/tree';

export type { TreeData };

// The sidebar's case tree: domain > category > subcategory > cases, an accordion. Each
// branch shows a chevron and how many cases it holds; a branch without cases is dimmed.
// The counts of domains and categories are visual only, so the buttons' names stay the
// spec's names.
export function CaseTree({ tree, open, setOpen, selected, onPick }: {
  tree: TreeData;
  open: OpenPath;
  setOpen: (o: OpenPath) => void;
  selected: string | null;
  onPick: (c: CaseRow) => void;
}) {
  // The chosen case's row is brought into view once its branch is open (a pick from the
  // search expands the tree to a row that may be far below).
  const ref = useRef<HTMLUListElement>(null);
  useEffect(() => {
    ref.current?.querySelector('.case-row[aria-current="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [selected, open]);
  const counts = useMemo(() => {
    const byDomain = new Map<string, number>();
    const byCategory = new Map<string, number>();
    for (const x of tree.cases) {
      byDomain.set(x.domain, (byDomain.get(x.domain) ?? 0) + 1);
      if (x.category) byCategory.set(`${x.domain}/${x.category}`, (byCategory.get(`${x.domain}/${x.category}`) ?? 0) + 1);
    }
    return { domain: (d: string) => byDomain.get(d) ?? 0, category: (c: Category) => byCategory.get(`${c.domain}/${c.name}`) ?? 0 };
  }, [tree.cases]);
  return (
    <ul className="tree" ref={ref}>
      {tree.domains.map((d) => {
        const cats = tree.categories.filter((c) => c.domain === d.code);
        const n = counts.domain(d.code);
        return (
          <li key={d.code} className={n === 0 ? 'empty-branch' : undefined}>
            <button aria-expanded={open.domain === d.code} onClick={() => setOpen(toggleDomain(open, d.code))}>
              <ChevronRightIcon className="chev" />
              <span className="label">{d.name}</span>
              <span className="count" aria-hidden>{n}</span>
            </button>
            {open.domain === d.code && (
              <ul>
                {cats.length === 0 && <li className="muted">Nu există cazuri</li>}
                {cats.map((c) => {
                  const nc = counts.category(c);
                  return (
                    <li key={c.id} className={nc === 0 ? 'empty-branch' : undefined}>
                      <button aria-expanded={open.category === c.id} onClick={() => setOpen(toggleCategory(open, d.code, c.id))}>
                        <ChevronRightIcon className="chev" />
                        <span className="label">{c.name}</span>
                        <span className="count" aria-hidden>{nc}</span>
                      </button>
                      {open.category === c.id && (
                        <ul>
                          {subcategoriesOf(c, tree.cases).map((s) => {
                            const cases = casesIn(tree.cases, d.code, c, s.name);
                            return (
                              <li key={s.name} className={cases.length === 0 ? 'empty-branch' : undefined}>
                                <button aria-expanded={open.sub === s.name} onClick={() => setOpen(toggleSub(open, d.code, c.id, s.name))}>
                                  <ChevronRightIcon className="chev" />
                                  <span className="label">{s.name}</span> <span className="count">{cases.length}</span>
                                </button>
                                {open.sub === s.name && (
                                  <ul className="cases">
                                    {cases.length === 0 && <li className="muted">Nu există cazuri</li>}
                                    {cases.map((x) => (
                                      <li key={x.id}>
                                        <button className={selected === x.id ? 'case-row active' : 'case-row'} aria-current={selected === x.id || undefined} onClick={() => onPick(x)}>
                                          <span className={`dot ${levelColor(x.level)}`} aria-label={x.level} role="img" />
                                          <span className="label">
                                            {x.verified && <span className="verified"><CheckIcon title="Verificat" /></span>}
                                            <span className="code">{x.case_code}</span> {stripCasePrefix(x.title)}
                                          </span>
                                        </button>
                                      </li>
                                    ))}
                                  </ul>
                                )}
                              </li>
                            );
                          })}
                        </ul>
                      )}
                    </li>
                  );
                })}
              </ul>
            )}
          </li>
        );
      })}
    </ul>
  );
}
