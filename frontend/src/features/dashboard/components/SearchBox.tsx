import { useEffect, useRef, useState } from 'react';
import { SEARCH_DEBOUNCE_MS, shouldSearch } from '../../../lib/validation';
import { useQuery } from '../../../lib/query';
import { useDebounced } from '../../../lib/useDebounced';
import { levelColor, searchCases, type SearchResult } from '../api/cases';
import { CheckIcon } from '../../../components/ui/icons';
import { readableError } from '../../../components/ui/toast';

const NONE: SearchResult[] = [];

// The case search of the sidebar: from 2 characters, 300 ms after the last keystroke, 10
// results; arrows, Enter and Escape; closes on an outside click.
export function SearchBox({ onPick }: { onPick: (r: SearchResult) => void }) {
  const [q, setQ] = useState('');
  // Results belong to the query they were asked for: while a newer query is pending
  // nothing stale is shown or picked with Enter (lib/query keeps answers by query).
  const key = q.trim();
  const asked = useDebounced(key, SEARCH_DEBOUNCE_MS);
  const search = useQuery(shouldSearch(asked) ? ['search', asked] : null, () => searchCases(asked));
  const current = shouldSearch(key) && asked === key && search.status !== 'loading';
  const failed = current && search.status === 'error';
  const results = current ? (failed ? NONE : (search.data ?? NONE)) : null;
  const error = failed ? readableError((search.error as Error)?.message ?? '') || 'Eroare la căutare' : null;
  const busy = shouldSearch(key) && !current;
  const [active, setActive] = useState(0);
  const [show, setShow] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  // The active option stays in sight as the arrows move it (the list scrolls inside its 400 px).
  useEffect(() => {
    if (show) list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView?.({ block: 'nearest' });
  }, [active, show, results]);
  // Each answer (or failure) opens the list on its first option.
  const answer = current ? (failed ? search.error : search.data) : undefined;
  const [seen, setSeen] = useState<unknown>(undefined);
  if (answer !== undefined && answer !== seen) {
    setSeen(answer);
    setShow(true);
    setActive(0);
  }
  useEffect(() => {
    const close = (e: MouseEvent) => ref.current && !ref.current.contains(e.target as Node) && setShow(false);
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, []);
  const choose = (r: SearchResult) => {
    onPick(r);
    setShow(false);
  };
  return (
    <div className="search" ref={ref}>
      <input
        aria-label="Caută cazuri după cod sau titlu"
        placeholder="Caută după cod sau titlu"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        onFocus={() => results && setShow(true)}
        onClick={() => results && setShow(true)}
        ref={input}
        onKeyDown={(e) => {
          // Escape closes the dropdown whatever it shows (no results, an error too).
          if (e.key === 'Escape' && show) {
            setShow(false);
            e.preventDefault();
            return;
          }
          if (!results?.length) return;
          // Closed (Escape, an outside click), the arrows open the same results again.
          if (!show && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
            setShow(true);
            e.preventDefault();
            return;
          }
          if (e.key === 'ArrowDown') setActive((a) => Math.min(a + 1, results.length - 1));
          else if (e.key === 'ArrowUp') setActive((a) => Math.max(a - 1, 0));
          else if (e.key === 'Enter') choose(results[active]);
          else if (e.key === 'Escape') setShow(false);
          else return;
          e.preventDefault();
        }}
      />
      {busy && <span className="spinner small" aria-label="Se caută" />}
      {q && <button className="clear" aria-label="Șterge căutarea" onClick={() => {
            setQ('');
            input.current?.focus();
          }}>×</button>}
      {show && results && (
        <ul className="search-results" role="listbox" style={{ maxHeight: 400 }} ref={list}>
          {error && <li className="error">{error}</li>}
          {!error && results.length === 0 && <li className="muted">Nu s-au găsit cazuri pentru "{q.trim()}"</li>}
          {results.map((r, i) => (
            <li key={r.id} role="option" aria-selected={i === active} className={i === active ? 'active' : ''} onMouseDown={() => choose(r)}>
              <span className={`dot ${levelColor(r.level)}`} />
              <strong>{highlight(r.case_code, q)}</strong> {r.verified && <CheckIcon title="Verificat" />} {highlight(r.title, q)}
              <div className="muted">{[r.category, r.subcategory].filter(Boolean).join(' › ')}</div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function fold(s: string) {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

function highlight(text: string, q: string) {
  const i = fold(text).indexOf(fold(q.trim()));
  if (i < 0 || !q.trim()) return text;
  const n = q.trim().length;
  return (
    <>
      {text.slice(0, i)}
      <mark>{text.slice(i, i + n)}</mark>
      {text.slice(i + n)}
    </>
  );
}

