import { useEffect, useMemo, useRef, useState } from 'react';
import { supabase, aiEnabled } from '../../lib/supabase';
import { useAuth } from '../../lib/auth/store';
import { clampViewer, SEARCH_DEBOUNCE_MS, shouldSearch, stripCasePrefix, VIEWER_DEFAULT } from '../../lib/validation';
import { CodeViewer, type CodeId } from './CodeViewer';
import { SolutionPanel } from './Evaluation';
import { TutorChat } from './TutorChat';
import { codeOf, levelColor, loadCase, loadTree, searchCases, type CaseFull, type CaseRow, type Category, type Domain, type SearchResult } from './data';

const VIEWER_KEY = 'casus.codeViewerHeight';

export default function Dashboard() {
  const [tree, setTree] = useState<{ domains: Domain[]; categories: Category[]; cases: CaseRow[] } | null>(null);
  const [open, setOpen] = useState<{ domain?: string; category?: string; sub?: string }>({});
  const [selected, setSelected] = useState<string | null>(null);
  const [sidebar, setSidebar] = useState(true);
  const [target, setTarget] = useState<{ code: CodeId; article: string; seq: number } | null>(null);
  useEffect(() => {
    loadTree().then(setTree).catch((e) => console.error('tree load failed', e));
  }, []);
  const pick = (c: { id: string; domain: string; category: string | null; subcategory: string | null }) => {
    setSelected(c.id);
    const cat = tree?.categories.find((x) => x.domain === c.domain && x.name === c.category);
    setOpen({ domain: c.domain, category: cat?.id, sub: c.subcategory ?? undefined });
  };
  return (
    <div className="dashboard">
      <button className="sidebar-toggle" aria-expanded={sidebar} onClick={() => setSidebar(!sidebar)}>
        {sidebar ? 'Ascunde categoriile' : 'Law Categories'}
      </button>
      {sidebar && (
        <aside className="sidebar" aria-label="Law Categories">
          <h2>Law Categories</h2>
          <SearchBox onPick={pick} />
          {!tree ? (
            <div className="skeleton-list" aria-busy="true">{[1, 2, 3, 4].map((i) => <div key={i} className="skeleton" />)}</div>
          ) : (
            <Tree tree={tree} open={open} setOpen={setOpen} selected={selected} onPick={(c) => setSelected(c.id)} />
          )}
        </aside>
      )}
      <main className="case-main">
        {selected ? <CaseView key={selected} id={selected} onArticle={(ref, num) => setTarget({ code: codeOf(ref), article: num, seq: Date.now() })} /> : <p className="empty">Selectează un caz</p>}
      </main>
      <RightPanel target={target} caseId={selected} />
    </div>
  );
}

function Tree({ tree, open, setOpen, selected, onPick }: {
  tree: { domains: Domain[]; categories: Category[]; cases: CaseRow[] };
  open: { domain?: string; category?: string; sub?: string };
  setOpen: (o: { domain?: string; category?: string; sub?: string }) => void;
  selected: string | null;
  onPick: (c: CaseRow) => void;
}) {
  return (
    <ul className="tree">
      {tree.domains.map((d) => (
        <li key={d.code}>
          <button aria-expanded={open.domain === d.code} onClick={() => setOpen(open.domain === d.code ? {} : { domain: d.code })}>{d.name}</button>
          {open.domain === d.code && (
            <ul>
              {tree.categories.filter((c) => c.domain === d.code).map((c) => (
                <li key={c.id}>
                  <button aria-expanded={open.category === c.id} onClick={() => setOpen(open.category === c.id ? { domain: d.code } : { domain: d.code, category: c.id })}>{c.name}</button>
                  {open.category === c.id && (
                    <ul>
                      {(c.law_subcategories.length ? c.law_subcategories : [{ name: c.name, position: 0 }]).map((s) => {
                        const cases = tree.cases.filter((x) => x.domain === d.code && x.category === c.name && (c.law_subcategories.length ? x.subcategory === s.name : true));
                        return (
                          <li key={s.name}>
                            <button aria-expanded={open.sub === s.name} onClick={() => setOpen(open.sub === s.name ? { domain: d.code, category: c.id } : { domain: d.code, category: c.id, sub: s.name })}>
                              {s.name} <span className="count">{cases.length}</span>
                            </button>
                            {open.sub === s.name && (
                              <ul className="cases">
                                {cases.length === 0 && <li className="muted">Nu există cazuri</li>}
                                {cases.map((x) => (
                                  <li key={x.id}>
                                    <button className={selected === x.id ? 'case-row active' : 'case-row'} onClick={() => onPick(x)}>
                                      <span className={`dot ${levelColor(x.level)}`} aria-label={x.level} />
                                      {x.verified && <span className="verified" title="Verificat">✓</span>}
                                      <span className="code">{x.case_code}</span> {stripCasePrefix(x.title)}
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
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

function SearchBox({ onPick }: { onPick: (r: SearchResult) => void }) {
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

function CaseView({ id, onArticle }: { id: string; onArticle: (ref: string, number: string) => void }) {
  const [c, setC] = useState<CaseFull | null | undefined>(undefined);
  useEffect(() => {
    loadCase(id).then(setC);
  }, [id]);
  if (c === undefined) return <div className="skeleton tall" aria-busy="true" />;
  if (c === null) return <p className="error">Cazul nu a putut fi încărcat.</p>;
  return (
    <article className="case">
      <header>
        <span className="code">{c.case_code}</span>
        <h1>{c.title}</h1>
        <span className={`badge level ${levelColor(c.level)}`}>{c.level}</span>
        {c.verified ? <span className="badge verified">Verificat</span> : <span className="badge">Neverificat</span>}
        <Colleagues caseId={c.id} />
      </header>
      <details className="solve">
        <summary>Rezolvă speța!</summary>
        <SolutionPanel key={c.id} caseId={c.id} aiOn={aiEnabled()} />
      </details>
      <h2>Problema juridică</h2>
      <p>{c.legal_problem}</p>
      <h2>Articole relevante</h2>
      <div className="articles">
        {c.articles.map((a) => (
          <button key={a.article_reference} className="badge article" onClick={() => onArticle(a.article_reference, a.article_number)}>
            {a.article_reference}
          </button>
        ))}
      </div>
      <h2>Speta (Cazul)</h2>
      {c.case_description.split('\n').filter(Boolean).map((p, i) => <p key={i}>{p}</p>)}
      <h2>Întrebare</h2>
      <p>{c.question}</p>
      <details>
        <summary>Pași de analiză așteptați</summary>
        <ol>{c.steps.map((s) => <li key={s.step_number}>{s.step_description}</li>)}</ol>
      </details>
      <details>
        <summary>Indicii</summary>
        <ul>{c.hints.map((h) => <li key={h.hint_number}>{h.hint_text}</li>)}</ul>
      </details>
    </article>
  );
}

// How many colleagues study this case right now (realtime presence, no names).
function Colleagues({ caseId }: { caseId: string }) {
  const { user } = useAuth();
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!user) return;
    const ch = supabase().channel(`case:${caseId}`, { config: { presence: { key: user.id } } });
    ch.on('presence', { event: 'sync' }, () => setN(Object.keys(ch.presenceState()).filter((k) => k !== user.id).length)).subscribe((status) => {
      if (status === 'SUBSCRIBED') ch.track({ at: new Date().toISOString() });
    });
    return () => {
      supabase().removeChannel(ch);
    };
  }, [caseId, user]);
  if (n === 0) return null;
  return <span className="colleagues" aria-live="polite">{n === 1 ? '1 coleg studiază acum acest caz' : `${n} colegi studiază acum acest caz`}</span>;
}

function RightPanel({ target, caseId }: { target: { code: CodeId; article: string; seq: number } | null; caseId: string | null }) {
  const [height, setHeight] = useState(() => clampViewer(Number(localStorage.getItem(VIEWER_KEY)) || VIEWER_DEFAULT, window.innerHeight));
  const drag = useRef<number | null>(null);
  useEffect(() => {
    const move = (e: PointerEvent) => {
      if (drag.current === null) return;
      setHeight(clampViewer(drag.current + e.clientY, window.innerHeight));
    };
    const up = () => {
      if (drag.current !== null) {
        drag.current = null;
        setHeight((h) => {
          localStorage.setItem(VIEWER_KEY, String(h));
          return h;
        });
      }
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
    return () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
    };
  }, []);
  const chat = useMemo(() => <TutorChat caseId={caseId} />, [caseId]);
  return (
    <aside className="right-panel">
      <div style={{ height }} className="viewer-box">
        <CodeViewer target={target} />
      </div>
      <div
        className="divider"
        role="separator"
        aria-orientation="horizontal"
        aria-valuenow={height}
        tabIndex={0}
        onPointerDown={(e) => (drag.current = height - e.clientY)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
            const h = clampViewer(height + (e.key === 'ArrowDown' ? 20 : -20), window.innerHeight);
            setHeight(h);
            localStorage.setItem(VIEWER_KEY, String(h));
          }
        }}
      />
      {chat}
    </aside>
  );
}
