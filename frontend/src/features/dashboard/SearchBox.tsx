import { useEffect, useRef, useState } from 'react';
import { SEARCH_DEBOUNCE_MS, shouldSearch } from '../../lib/validation';
import { levelColor, searchCases, type SearchResult } from './data';

// The case search of the sidebar: from 2 characters, 300 ms after the last keystroke, 10
// results; arrows, Enter and Escape; closes on an outside click.
export function SearchBox({ onPick }: { onPick: (r: SearchResult) => void }) {
  const [q, setQ] = useState('');
  const [found, setResults] = useState<SearchResult[] | null>(null);
  const results = shouldSearch(q) ? found : null;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const [show, setShow] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!shouldSearch(q)) return;
    const t = setTimeout(async () => {
      setBusy(true);
      try {
        setResults(await searchCases(q));
        setError(null);
      } catch (e) {
        setResults([]);
        setError((e as Error).message || 'Eroare la căutare');
      } finally {
        setBusy(false);
        setShow(true);
        setActive(0);
      }
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [q]);
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
        onKeyDown={(e) => {
          if (!results?.length) return;
          if (e.key === 'ArrowDown') setActive((a) => Math.min(a + 1, results.length - 1));
          else if (e.key === 'ArrowUp') setActive((a) => Math.max(a - 1, 0));
          else if (e.key === 'Enter') choose(results[active]);
          else if (e.key === 'Escape') setShow(false);
          else return;
          e.preventDefault();
        }}
      />
      {busy && <span className="spinner small" aria-label="Se caută" />}
      {q && <button className="clear" aria-label="Șterge căutarea" onClick={() => setQ('')}>×</button>}
      {show && results && (
        <ul className="search-results" role="listbox" style={{ maxHeight: 400 }}>
          {error && <li className="error">{error}</li>}
          {!error && results.length === 0 && <li className="muted">Nu s-au găsit cazuri pentru "{q.trim()}"</li>}
          {results.map((r, i) => (
            <li key={r.id} role="option" aria-selected={i === active} className={i === active ? 'active' : ''} onMouseDown={() => choose(r)}>
              <span className={`dot ${levelColor(r.level)}`} />
              <strong>{highlight(r.case_code, q)}</strong> {r.verified && '✓'} {highlight(r.title, q)}
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

