import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import type { RealtimeChannel } from '@supabase/supabase-js';
import { useSearchParams } from 'react-router-dom';
import { supabase, aiEnabled } from '../../../lib/supabase';
import { useAuth } from '../../../lib/auth/store';
import { presenceKey } from '../../../lib/presence';
import { CHAT_MIN, clampViewer, VIEWER_DEFAULT } from '../../../lib/validation';
import { CodeViewer, type CodeId } from '../../../components/code-viewer/CodeViewer';
import { readVisitorDraft } from '../utils/visitorDraft';
import { SearchBox } from './SearchBox';
import { SOLVE_EVENT } from '../utils/solve';
import { discardDraft, hasUnsavedDraft } from '../utils/drafts';
import { Dialog } from '../../../components/ui/dialog';
import { TutorChat } from './TutorChat';
import { codeOf, lawAsOfLabel, levelColor, loadCase, loadTree, rememberCase, type CaseFull } from '../api/cases';
import { pathTo, type OpenPath } from '../utils/tree';
import { Welcome } from './Welcome';
import { MenuIcon } from '../../../components/ui/icons';
import { CaseTree, type TreeData } from './CaseTree';

// The solution panel (grading, charts, appeals) loads with the first opened case, not with the page.
const SolutionPanel = lazy(() => import('./Evaluation').then((m) => ({ default: m.SolutionPanel })));

export const VIEWER_KEY = 'casus.codeViewerHeight';
const DIVIDER = 8; // px, .divider's height
const MOBILE_QUERY = '(max-width: 900px)';

type Target = { code: CodeId; article: string; seq: number };
type Sheet = 'viewer' | 'chat' | null;

const mobileNow = () => typeof window.matchMedia === 'function' && window.matchMedia(MOBILE_QUERY).matches;

// True on small screens: the sidebar becomes a drawer and the right panel bottom sheets.
function useIsMobile(): boolean {
  const [m, setM] = useState(mobileNow);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const mq = window.matchMedia(MOBILE_QUERY);
    const f = () => setM(mq.matches);
    mq.addEventListener('change', f);
    return () => mq.removeEventListener('change', f);
  }, []);
  return m;
}

// The case tree is requested as soon as this chunk is evaluated (the route is protected, so
// a session exists), not after the first render; the first mount takes that answer.
let prefetch: { promise: Promise<TreeData>; data: TreeData | null } | null = null;
function startTreeLoad() {
  const p = { promise: loadTree(), data: null as TreeData | null };
  p.promise.then((t) => (p.data = t)).catch(() => {});
  return p;
}
try {
  prefetch = startTreeLoad();
} catch {
  prefetch = null; // no client yet (unit tests)
}
function takeTreeLoad() {
  const p = prefetch ?? startTreeLoad();
  prefetch = null;
  return p;
}

export default function Dashboard() {
  const [load] = useState(takeTreeLoad);
  const [tree, setTree] = useState<TreeData | null>(() => load.data);
  const [open, setOpen] = useState<OpenPath>({});
  // An answer written before the account existed (visitorDraft.ts) opens its case.
  const [selected, setSelected] = useState<string | null>(() => readVisitorDraft()?.caseId ?? null);
  const mobile = useIsMobile();
  const [sidebar, setSidebar] = useState(() => !mobileNow());
  const [sheet, setSheet] = useState<Sheet>(null);
  const [target, setTarget] = useState<Target | null>(null);
  // Crossing the breakpoint: the drawer starts closed on small screens, the sidebar open on large.
  const [wasMobile, setWasMobile] = useState(mobile);
  if (wasMobile !== mobile) {
    setWasMobile(mobile);
    setSidebar(!mobile);
    setSheet(null);
  }
  const [, setParams] = useSearchParams();
  useEffect(() => {
    performance.mark('casus:dashboard-start');
    load.promise
      .then((t) => {
        setTree(t);
        performance.mark('casus:case-list');
        // /dashboard?caz=<id> (a link from My Progress) opens that case; the parameter is
        // then dropped so that picking another case is not undone by a reload.
        const linked = new URLSearchParams(window.location.search).get('caz');
        if (!linked) return;
        const c = t.cases.find((x) => x.id === linked);
        if (c) setOpen(pathTo(c, t.categories));
        setSelected(linked); // not in the tree (e.g. archived): the case view still opens it
        setParams({}, { replace: true });
      })
      .catch((e) => console.error('tree load failed', e));
  }, [load, setParams]);
  const { user } = useAuth();
  const userId = user?.id ?? null;
  // Switching away from a case with an unsaved draft asks first (issue 19, bug 11).
  const [pendingSwitch, setPendingSwitch] = useState<(() => void) | null>(null);
  const guarded = (id: string, go: () => void) => {
    if (selected && id !== selected && hasUnsavedDraft(userId, selected)) setPendingSwitch(() => go);
    else go();
  };
  const choose = (id: string) => {
    guarded(id, () => {
      setSelected(id);
      if (mobile) setSidebar(false);
    });
  };
  const pick = (c: { id: string; domain: string; category: string | null; subcategory: string | null }) => {
    guarded(c.id, () => {
      setOpen(pathTo(c, tree?.categories ?? []));
      setSelected(c.id);
      if (mobile) setSidebar(false);
    });
  };
  // The solution panel opened from the tutor: on a phone the chat's bottom sheet gives way.
  useEffect(() => {
    const close = () => setSheet(null);
    window.addEventListener(SOLVE_EVENT, close);
    return () => window.removeEventListener(SOLVE_EVENT, close);
  }, []);
  const drawer = mobile && sidebar;
  // Keyboard: an opened drawer takes the focus (its close button); closed, it goes back to the toggle.
  const toggleRef = useRef<HTMLButtonElement>(null);
  const drawerClose = useRef<HTMLButtonElement>(null);
  const wasDrawer = useRef(drawer);
  useEffect(() => {
    if (drawer) drawerClose.current?.focus();
    else if (wasDrawer.current) toggleRef.current?.focus();
    wasDrawer.current = drawer;
  }, [drawer]);
  // Escape closes an open bottom sheet, else the drawer (unless something inside used it,
  // like the search list).
  useEffect(() => {
    if (!mobile || (!sheet && !sidebar)) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      if (sheet) setSheet(null);
      else setSidebar(false);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [mobile, sheet, sidebar]);
  return (
    <div className={`dashboard${sidebar && !mobile ? '' : ' no-sidebar'}${mobile ? ' mobile' : ''}`}>
      <div className="dash-toolbar">
        <button ref={toggleRef} className="sidebar-toggle" aria-expanded={sidebar} aria-controls="law-categories" onClick={() => setSidebar(!sidebar)}>
          {mobile ? <><MenuIcon /> Law Categories</> : sidebar ? 'Ascunde categoriile' : 'Law Categories'}
        </button>
        {mobile && (
          <>
            <button aria-expanded={sheet === 'viewer'} onClick={() => setSheet(sheet === 'viewer' ? null : 'viewer')}>Coduri</button>
            <button aria-expanded={sheet === 'chat'} onClick={() => setSheet(sheet === 'chat' ? null : 'chat')}>Casus AI</button>
          </>
        )}
      </div>
      {drawer && <div className="backdrop" onClick={() => setSidebar(false)} aria-hidden />}
      {sidebar && (
        <aside
          id="law-categories"
          className={drawer ? 'sidebar drawer' : 'sidebar'}
          aria-label="Law Categories"
          role={drawer ? 'dialog' : undefined}
          aria-modal={drawer || undefined}
        >
          <div className="sidebar-head">
            <h2>Law Categories</h2>
            {drawer && (
              <button ref={drawerClose} className="close" aria-label="Închide categoriile" onClick={() => setSidebar(false)}>
                ×
              </button>
            )}
          </div>
          <SearchBox onPick={pick} />
          {!tree ? (
            <div className="skeleton-list" aria-busy="true">{[1, 2, 3, 4].map((i) => <div key={i} className="skeleton" />)}</div>
          ) : (
            <CaseTree tree={tree} open={open} setOpen={setOpen} selected={selected} onPick={(c) => choose(c.id)} />
          )}
        </aside>
      )}
      <main className="case-main">
        {selected ? (
          <CaseView
            key={selected}
            id={selected}
            onArticle={(ref, num) => {
              setTarget({ code: codeOf(ref), article: num, seq: performance.now() });
              if (mobile) setSheet('viewer');
            }}
          />
        ) : (
          <Welcome tree={tree} onPick={pick} />
        )}
      </main>
      <RightPanel target={target} caseId={selected} mobile={mobile} sheet={sheet} onClose={() => setSheet(null)} />
      <Dialog open={!!pendingSwitch} onClose={() => setPendingSwitch(null)} title="Text nesalvat">
        <p>Ai un text nesalvat. Renunți la el?</p>
        <p className="muted">Ciorna rămâne pe acest dispozitiv: o poți restaura când revii la caz.</p>
        <div className="row">
          <button type="button" onClick={() => setPendingSwitch(null)}>Rămâi la caz</button>
          <button
            type="button"
            className="primary"
            onClick={() => {
              const go = pendingSwitch;
              if (selected) discardDraft(userId, selected);
              setPendingSwitch(null);
              go?.();
            }}
          >
            Renunță și schimbă cazul
          </button>
        </div>
      </Dialog>
    </div>
  );
}

export function CaseView({ id, onArticle }: { id: string; onArticle: (ref: string, number: string) => void }) {
  const [c, setC] = useState<CaseFull | null | undefined>(undefined);
  const solve = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    loadCase(id).then(setC);
    rememberCase(id);
  }, [id]);
  useEffect(() => {
    const open = () => {
      const d = solve.current;
      if (!d) return;
      d.open = true;
      d.scrollIntoView({ block: 'start' });
      d.querySelector('textarea')?.focus({ preventScroll: true });
    };
    window.addEventListener(SOLVE_EVENT, open);
    return () => window.removeEventListener(SOLVE_EVENT, open);
  }, []);
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
      <details className="solve" ref={solve} open={readVisitorDraft()?.caseId === c.id || undefined}>
        <summary>Rezolvă speța!</summary>
        <Suspense fallback={<div className="skeleton tall" aria-busy="true" />}>
          <SolutionPanel key={c.id} caseId={c.id} aiOn={aiEnabled()} />
        </Suspense>
      </details>
      {lawAsOfLabel(c.law_as_of) && <p className="law-as-of">{lawAsOfLabel(c.law_as_of)}</p>}
      <section className="callout">
        <h2>Problema juridică</h2>
        <p>{c.legal_problem}</p>
      </section>
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
      <section className="callout question">
        <h2>Întrebare</h2>
        <p>{c.question}</p>
      </section>
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

// How many colleagues study this case right now (realtime presence, no names: the key is
// opaque, see presenceKey).
function Colleagues({ caseId }: { caseId: string }) {
  const { user } = useAuth();
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!user) return;
    const topic = `case:${caseId}`;
    let ch: RealtimeChannel | null = null;
    let gone = false;
    presenceKey(user.id, topic).then((key) => {
      if (gone) return;
      const c = supabase().channel(topic, { config: { presence: { key } } });
      ch = c;
      c.on('presence', { event: 'sync' }, () => setN(Object.keys(c.presenceState()).filter((k) => k !== key).length)).subscribe((status) => {
        if (status === 'SUBSCRIBED') c.track({ at: new Date().toISOString() });
      });
    });
    return () => {
      gone = true;
      if (ch) supabase().removeChannel(ch);
    };
  }, [caseId, user]);
  if (n === 0) return null;
  return <span className="colleagues" aria-live="polite">{n === 1 ? '1 coleg studiază acum acest caz' : `${n} colegi studiază acum acest caz`}</span>;
}

function RightPanel({ target, caseId, mobile, sheet, onClose }: { target: Target | null; caseId: string | null; mobile: boolean; sheet: Sheet; onClose: () => void }) {
  const [height, setHeight] = useState(() => clampViewer(Number(localStorage.getItem(VIEWER_KEY)) || VIEWER_DEFAULT, window.innerHeight));
  const drag = useRef<number | null>(null);
  // What the panel leaves the viewer above the divider and the chat's minimum; the viewer
  // shows the chosen height within it (issue 19, bug 2).
  const panel = useRef<HTMLElement>(null);
  const [room, setRoom] = useState(Infinity);
  const roomRef = useRef(Infinity);
  useEffect(() => {
    const el = panel.current;
    if (!el || typeof ResizeObserver !== 'function') return;
    const ro = new ResizeObserver(() => {
      roomRef.current = el.clientHeight - DIVIDER - CHAT_MIN;
      setRoom(roomRef.current);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [mobile]);
  const shown = clampViewer(height, window.innerHeight, room);
  useEffect(() => {
    const move = (e: PointerEvent) => {
      if (drag.current === null) return;
      setHeight(clampViewer(drag.current + e.clientY, window.innerHeight, roomRef.current));
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
  const closeBtn = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (mobile && sheet) closeBtn.current?.focus();
  }, [mobile, sheet]);
  // Touch: dragging the sheet's handle down by more than 80 px closes it.
  const swipe = useRef<number | null>(null);
  if (mobile) {
    const title = sheet === 'chat' ? 'Casus AI' : 'Coduri';
    return (
      <>
        {sheet && <div className="backdrop" onClick={onClose} aria-hidden />}
        <aside
          className={`right-panel sheet${sheet ? ' open' : ''}`}
          role="dialog"
          aria-modal={sheet ? true : undefined}
          aria-label={title}
          aria-hidden={!sheet}
          inert={!sheet}
        >
          <div
            className="sheet-head"
            onPointerDown={(e) => {
              if ((e.target as HTMLElement).closest('button')) return;
              swipe.current = e.clientY;
              e.currentTarget.setPointerCapture?.(e.pointerId);
            }}
            onPointerUp={(e) => {
              if (swipe.current !== null && e.clientY - swipe.current > 80) onClose();
              swipe.current = null;
            }}
          >
            <span className="handle" aria-hidden />
            <strong>{title}</strong>
            <button ref={closeBtn} className="close" aria-label="Închide" onClick={onClose}>
              ×
            </button>
          </div>
          <div className="sheet-body" hidden={sheet !== 'viewer'}>
            <CodeViewer target={target} active={sheet === 'viewer'} />
          </div>
          <div className="sheet-body" hidden={sheet !== 'chat'}>
            <TutorChat caseId={caseId} />
          </div>
        </aside>
      </>
    );
  }
  return (
    <aside className="right-panel" ref={panel}>
      <div style={{ height: shown }} className="viewer-box" data-testid="viewer-box">
        <CodeViewer target={target} />
      </div>
      <div
        className="divider"
        role="separator"
        aria-orientation="horizontal"
        aria-label="Redimensionează"
        aria-valuenow={shown}
        aria-valuemin={150}
        aria-valuemax={clampViewer(Infinity, window.innerHeight, room)}
        tabIndex={0}
        onPointerDown={(e) => {
          e.preventDefault();
          drag.current = shown - e.clientY;
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
            e.preventDefault();
            const h = clampViewer(shown + (e.key === 'ArrowDown' ? 20 : -20), window.innerHeight, room);
            setHeight(h);
            localStorage.setItem(VIEWER_KEY, String(h));
          }
        }}
      />
      <TutorChat caseId={caseId} />
    </aside>
  );
}
