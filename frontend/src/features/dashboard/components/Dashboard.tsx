import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useUserId } from '../../../lib/auth/store';
import { readVisitorDraft } from '../utils/visitorDraft';
import { SearchBox } from './SearchBox';
import { SOLVE_EVENT } from '../utils/solve';
import { discardDraft, hasUnsavedDraft } from '../utils/drafts';
import { Dialog } from '../../../components/ui/dialog';
import { Failed } from '../../../components/ui/status';
import { codeOf } from '../api/cases';
import { pathTo, type OpenPath } from '../utils/tree';
import { Welcome } from './Welcome';
import { MenuIcon } from '../../../components/ui/icons';
import { CaseTree } from './CaseTree';
import { CaseView } from './CaseView';
import { RightPanel, type Sheet, type Target } from './RightPanel';
import { DOMAIN_CODE } from '../../../components/code-viewer/CodeViewer';
import { mobileNow, useIsMobile } from '../hooks/useIsMobile';
import { useCaseTree } from '../hooks/useCaseTree';

// Below this width the sidebar, the case and the right panel do not fit side by side.
const narrowNow = () => window.innerWidth < 1280;

// The study screen: the case tree in the sidebar, the case in the middle, the code viewer
// and the tutor in the right panel. This page holds what they share (the open case, the
// open path of the tree, the article to show) and the phone layout's drawer and sheets.
// teme: the seminar assignments' section of the empty dashboard (composed by the route),
// given the function that opens a case.
export default function Dashboard({ teme }: { teme?: (openCase: (caseId: string) => void) => ReactNode } = {}) {
  const { tree: treeQuery, ready } = useCaseTree();
  const tree = treeQuery.data ?? null;
  const [open, setOpen] = useState<OpenPath>({});
  // An answer written before the account existed (visitorDraft.ts) opens its case.
  const [selected, setSelected] = useState<string | null>(() => readVisitorDraft()?.caseId ?? null);
  const mobile = useIsMobile();
  // Below 1280 px the sidebar starts folded, so the case column keeps a readable width
  // beside the right panel (walkthrough 3, bug 30); the toggle opens it, and a picked case
  // folds it again.
  const [sidebar, setSidebar] = useState(() => !mobileNow() && !narrowNow());
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
    ready()
      .then((t) => {
        // /dashboard?caz=<id> (a link from My Progress) opens that case; the parameter is
        // then dropped so that picking another case is not undone by a reload.
        const linked = new URLSearchParams(window.location.search).get('caz');
        if (!linked) return;
        const c = t.cases.find((x) => x.id === linked);
        if (c) setOpen(pathTo(c, t.categories));
        setSelected(linked); // not in the tree (e.g. archived): the case view still opens it
        setParams({}, { replace: true });
      })
      .catch(() => {}); // logged by useCaseTree
  }, [ready, setParams]);
  const userId = useUserId();
  // Switching away from a case with an unsaved draft asks first (issue 19, bug 11).
  const [pendingSwitch, setPendingSwitch] = useState<(() => void) | null>(null);
  const guarded = (id: string, go: () => void) => {
    if (selected && id !== selected && hasUnsavedDraft(userId, selected)) setPendingSwitch(() => go);
    else go();
  };
  const choose = (id: string) => {
    guarded(id, () => {
      setSelected(id);
      if (mobile || narrowNow()) setSidebar(false);
    });
  };
  const pick = (c: { id: string; domain: string; category: string | null; subcategory: string | null }) => {
    guarded(c.id, () => {
      setOpen(pathTo(c, tree?.categories ?? []));
      setSelected(c.id);
      if (mobile || narrowNow()) setSidebar(false);
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
          {mobile ? <><MenuIcon /> Law Categories</> : sidebar ? 'Ascunde categoriile' : 'Arată categoriile'}
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
        // A <div> with a role: an <aside> may not take the dialog role the phone drawer needs.
        <div
          id="law-categories"
          className={drawer ? 'sidebar drawer' : 'sidebar'}
          aria-label="Law Categories"
          role={drawer ? 'dialog' : 'complementary'}
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
          {!tree && treeQuery.status === 'error' ? (
            <Failed message="Cazurile nu au putut fi încărcate." onRetry={() => void treeQuery.refetch()} />
          ) : !tree ? (
            <div className="skeleton-list" aria-busy="true">{[1, 2, 3, 4].map((i) => <div key={i} className="skeleton" />)}</div>
          ) : (
            <CaseTree tree={tree} open={open} setOpen={setOpen} selected={selected} onPick={(c) => choose(c.id)} />
          )}
        </div>
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
          <Welcome
            tree={tree}
            onPick={pick}
            teme={teme?.((id) => {
              const c = tree?.cases.find((x) => x.id === id);
              if (c) pick(c);
              else choose(id); // not in the tree (e.g. a staff-generated case): the view still opens it
            })}
          />
        )}
      </main>
      <RightPanel target={target} home={DOMAIN_CODE[tree?.cases.find((c) => c.id === selected)?.domain ?? '']} caseId={selected} mobile={mobile} sheet={sheet} onClose={() => setSheet(null)} />
      <Dialog open={!!pendingSwitch} onClose={() => setPendingSwitch(null)} title="Text nesalvat">
        {/* The draft is kept (drafts.ts): the question is only whether to leave the case
            (walkthrough 3, bug 31). */}
        <p>Textul tău nu a fost trimis la evaluare. Schimbi cazul?</p>
        <p className="muted">Editorul se golește, dar ciorna rămâne pe acest dispozitiv: o poți restaura când revii la caz.</p>
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
            Schimbă cazul
          </button>
        </div>
      </Dialog>
    </div>
  );
}

