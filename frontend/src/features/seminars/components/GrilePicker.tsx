import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useQuery } from '../../../lib/query';
import { countOf } from '../../../lib/plural';
import { searchGrile, type GrilaChoice } from '../api/seminars';

const NONE: GrilaChoice[] = [];
const MAX = 100;

// The grile of an assignment of chosen questions: a search by code or text, the results
// as toggle buttons, and the chosen ones in order, each with its removal. Enter in the
// search runs it at once instead of sending the whole form; after a removal the focus
// goes to the next removal button (or back to the search), so a keyboard never loses it.
export function GrilePicker({ value, onChange }: { value: GrilaChoice[]; onChange: (v: GrilaChoice[]) => void }) {
  const [q, setQ] = useState('');
  const [term, setTerm] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setTerm(q.trim()), 250);
    return () => clearTimeout(t);
  }, [q]);
  const found = useQuery(term ? ['grile-search', term] : null, () => searchGrile(term), { gcTime: 0 }).data ?? NONE;
  const search = useRef<HTMLInputElement>(null);
  const chosenList = useRef<HTMLOListElement>(null);
  // Where the focus goes once a removal has rendered (the removed item's index).
  const focusAt = useRef<number | null>(null);
  useEffect(() => {
    const at = focusAt.current;
    if (at == null) return;
    focusAt.current = null;
    const buttons = chosenList.current?.querySelectorAll<HTMLButtonElement>('button.remove');
    if (buttons?.length) buttons[Math.min(at, buttons.length - 1)].focus();
    else search.current?.focus();
  }, [value]);

  const has = (id: string) => value.some((g) => g.id === id);
  const toggle = (g: GrilaChoice) => onChange(has(g.id) ? value.filter((x) => x.id !== g.id) : value.length < MAX ? [...value, g] : value);
  const remove = (i: number) => {
    onChange(value.filter((_, j) => j !== i));
    focusAt.current = i;
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    setTerm(q.trim());
  };

  return (
    <div className="grile-chosen">
      <label>
        Caută grile (cod sau text)
        <input ref={search} type="search" value={q} onChange={(e) => setQ(e.target.value)} onKeyDown={onKey} placeholder="GCIV001 sau „uzucapiune”" />
      </label>
      {term && found.length === 0 && <p className="muted">Nicio grilă găsită.</p>}
      {found.length > 0 && (
        <ul className="case-results grile-results" aria-label="Grile găsite">
          {found.map((g) => (
            <li key={g.id}>
              <button type="button" aria-pressed={has(g.id)} onClick={() => toggle(g)} disabled={!has(g.id) && value.length >= MAX}>
                <span className="code">{g.code}</span> <span className="statement">{g.statement}</span>
                <span className="badge">{has(g.id) ? 'Aleasă' : g.level}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <h3 id="grile-chosen-title">Grilele alese</h3>
      <p className="muted" role="status" data-testid="grile-chosen-count">
        {value.length === 0 ? 'Nicio grilă aleasă încă: caută și apasă pe o grilă ca s-o adaugi.' : `${countOf(value.length, 'grilă aleasă', 'grile alese')}, în ordinea în care le vor primi studenții.`}
      </p>
      {value.length > 0 && (
        <ol ref={chosenList} className="grile-chosen-list" aria-labelledby="grile-chosen-title">
          {value.map((g, i) => (
            <li key={g.id} data-testid="grila-aleasa">
              <span>
                <span className="code">{g.code}</span> <span className="statement">{g.statement}</span>
              </span>
              <button type="button" className="remove" onClick={() => remove(i)} aria-label={`Scoate grila ${g.code}`}>
                Scoate
              </button>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
