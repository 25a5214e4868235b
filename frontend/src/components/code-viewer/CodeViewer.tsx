import { countOf } from '../../lib/plural';
import { useQuery } from '../../lib/query';
import { memo, type ReactNode, type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react';

export const CODE_TABS = [
  { id: 'codul_civil', label: 'Codul Civil' },
  { id: 'constitutia', label: 'Constituția României' },
  { id: 'codul_penal', label: 'Codul Penal' },
] as const;
export type CodeId = (typeof CODE_TABS)[number]['id'];
// The code a case of each domain is read against (the tab its case opens on).
export const DOMAIN_CODE: Partial<Record<string, CodeId>> = { civil: 'codul_civil', penal: 'codul_penal', constitutional: 'constitutia' };

export type Article = { readonly idx: number; readonly number: string; readonly text: string; readonly lines: string[]; readonly lower: string };

// One article; its lines (for the heading of a rendered article) and its lower-case text (for
// a search) are computed on first use, not for the thousands of articles a code loads.
class CodeArticle implements Article {
  readonly idx: number;
  readonly number: string;
  readonly text: string;
  private low: string | undefined;
  constructor(idx: number, number: string, text: string) {
    this.idx = idx;
    this.number = number;
    this.text = text;
  }
  get lines() {
    return this.text.split('\n');
  }
  get lower() {
    return (this.low ??= this.text.toLowerCase());
  }
}

const HEADER = /^(?:Art\.|Articolul) (\d+(?:\^\d+)?)$/gm;

// Splits a code text into articles ("Art. N" / "Articolul N" header lines): one scan for the
// headers, each article a slice from its header to the line before the next.
export function splitArticles(text: string): Article[] {
  const out: Article[] = [];
  let num = '';
  let from = 0;
  const flush = (end: number) => {
    const t = text.slice(from, end);
    if (num || t.trim()) out.push(new CodeArticle(out.length, num, t));
  };
  for (const m of text.matchAll(HEADER)) {
    flush(Math.max(from, m.index - 1));
    num = m[1];
    from = m.index;
  }
  flush(text.length);
  return out;
}

// "Art. 1357 C.civ." / "art. 1357" / "1357" → "1357" (what data-article holds).
export function articleNumber(input: string): string {
  const m = /(\d+(?:\^\d+)?)/.exec(input);
  return m ? m[1] : input.trim();
}

// How long a jump keeps its article at the top: until the position has held this many
// frames in a row, and never longer than about ten seconds of frames.
const SETTLED_FRAMES = 12;
const MAX_PLACING_FRAMES = 600;

const cache = new Map<CodeId, Promise<string>>();
function loadText(id: CodeId): Promise<string> {
  if (!cache.has(id)) {
    cache.set(
      id,
      fetch(`/codes/${id}.txt`).then((r) => {
        if (!r.ok) throw new Error(String(r.status));
        return r.text();
      }),
    );
  }
  return cache.get(id)!;
}

// Space between two articles (the CSS margin of .code-text article is the same).
const GAP = 14;

// A first guess of an article's height in the box, from its line lengths: the serif text
// at 15 px (about 7.5 px a character, 22 px a line) plus the heading's padding. Only the
// scrollbar and the first placement of a jump use it; each rendered article is measured.
function estimateHeight(a: Article, width: number): number {
  const perLine = Math.max(20, Math.floor((width - 32) / 7.5));
  const t = a.text;
  let lines = 0;
  for (let from = 0; ; ) {
    const nl = t.indexOf('\n', from);
    lines += Math.max(1, Math.ceil(((nl < 0 ? t.length : nl) - from) / perLine));
    if (nl < 0) break;
    from = nl + 1;
  }
  return lines * 22 + (a.number ? 10 : 0);
}

// How far beyond the visible part of the box articles are rendered, above and below.
const OVERSCAN_PX = 800;

// Windowing of the article list inside the scrolling box: which articles to render for
// the current scroll position, and the heights the spacers stand for above and below
// them. Rendered articles report their real heights (one ResizeObserver); the others
// count with their estimate. The spacers keep the scrollbar honest, and since articles are
// in normal flow the browser's scroll anchoring keeps the text still when an article
// above the visible part takes its measured height. offsets.current[i] is where article i
// starts (read by the jump, outside render).
//
// want (a jump: its article's index, keyed by the highlight it is for) renders the band
// around that article's estimated place in the same render as the highlight, before the box
// has scrolled there, so the jump finds its article in the page at once; the band follows
// the scroll position again from the next scroll or resize.
function useWindow(box: RefObject<HTMLDivElement | null>, items: Article[], code: CodeId, want: { key: object; index: number } | null) {
  const [view, setView] = useState({ top: 0, height: 0, width: 0 });
  const [sizes, setSizes] = useState(() => new Map<string, number>());
  const [pin, setPin] = useState<{ key: object; index: number; live: boolean } | null>(null);
  if (want && want.index >= 0 && pin?.key !== want.key) setPin({ ...want, live: true });
  useEffect(() => {
    const c = box.current;
    if (!c) return;
    const read = () => {
      setPin((p) => (p?.live ? { ...p, live: false } : p));
      setView((v) => (v.top === c.scrollTop && v.height === c.clientHeight && v.width === c.clientWidth ? v : { top: c.scrollTop, height: c.clientHeight, width: c.clientWidth }));
    };
    const ro = new ResizeObserver(read);
    ro.observe(c);
    c.addEventListener('scroll', read, { passive: true });
    read();
    return () => {
      ro.disconnect();
      c.removeEventListener('scroll', read);
    };
  }, [box]);
  // One observer for every rendered article; heights are keyed per code and article.
  const [observer] = useState(
    () =>
      new ResizeObserver((entries) =>
        setSizes((prev) => {
          let next: Map<string, number> | null = null;
          for (const e of entries) {
            const el = e.target as HTMLElement;
            const h = e.borderBoxSize?.[0]?.blockSize ?? el.offsetHeight;
            if (!el.isConnected || h === 0 || prev.get(el.dataset.key!) === h) continue;
            next ??= new Map(prev);
            next.set(el.dataset.key!, h);
          }
          return next ?? prev;
        }),
      ),
  );
  useEffect(() => () => observer.disconnect(), [observer]);
  const measure = useCallback(
    (el: HTMLElement | null) => {
      if (!el) return;
      el.dataset.key = `${code}:${el.dataset.idx}`;
      observer.observe(el);
      // Unobserved when it leaves the page (the callback ref's cleanup).
      return () => observer.unobserve(el);
    },
    [observer, code],
  );
  const width = view.width || 420;
  const estimates = useMemo(() => items.map((a) => estimateHeight(a, width)), [items, width]);
  const offsetsNow = useMemo(() => {
    const o = new Float64Array(items.length + 1);
    for (let i = 0; i < items.length; i++) o[i + 1] = o[i] + (sizes.get(`${code}:${items[i].idx}`) ?? estimates[i]) + GAP;
    return o;
  }, [items, sizes, estimates, code]);
  const offsets = useRef(offsetsNow);
  useEffect(() => {
    offsets.current = offsetsNow;
  }, [offsetsNow]);
  // First article ending below the top of the rendered band, last one starting above its
  // bottom (binary searches on the offsets). A box not laid out yet renders a few.
  const n = items.length;
  const top = pin?.live && pin.index < n ? offsetsNow[pin.index] : view.top;
  const lo = top - OVERSCAN_PX;
  const hi = top + Math.max(view.height, 1) + OVERSCAN_PX;
  let start = 0;
  for (let l = 0, r = n; l < r; ) {
    const m = (l + r) >> 1;
    if (offsetsNow[m + 1] <= lo) l = start = m + 1;
    else r = m;
  }
  let end = start;
  while (end < n && (offsetsNow[end] < hi || end - start < 3)) end++;
  const range: number[] = [];
  for (let i = start; i < end; i++) range.push(i);
  return { range, before: offsetsNow[start], after: offsetsNow[n] - offsetsNow[end], measure, offsets };
}

// The legal-code viewer: texts load on first selection of a tab; "go to article" and
// in-text search. Only the articles in and near the visible part of the box are in the
// page (useWindow measures each as it renders; spacers stand for the rest), so the
// 2,674-article Civil Code costs a few dozen elements, and a jump renders the articles
// around its target. Each article carries its position (aria-posinset/setsize)
// for screen readers; the code search finds what find-in-page no longer can.
export function CodeViewer({ target, home, active = true }: { target: { code: CodeId; article: string; seq: number } | null; home?: CodeId; active?: boolean }) {
  const [tab, setTab] = useState<CodeId>(target?.code ?? home ?? 'codul_civil');
  // Another case's code (home): its tab shows (walkthrough 3, bug 29).
  const [seenHome, setSeenHome] = useState(home);
  if (home !== seenHome) {
    setSeenHome(home);
    if (home) setTab(home);
  }
  // The open code's text: undefined while loading, null when it cannot be read. The files
  // are static: kept for the session (loadText), so a refetch costs nothing. A viewer not
  // shown yet (the phone's closed sheet) loads nothing: reading and splitting a code is the
  // heaviest work of a first page on a phone.
  const [shownOnce, setShownOnce] = useState(active);
  if (active && !shownOnce) setShownOnce(true);
  const code = useQuery(shownOnce ? ['code-text', tab] : null, () => loadText(tab), { gcTime: Infinity });
  const current: string | null | undefined = code.status === 'error' ? null : code.data;
  const [goto, setGoto] = useState('');
  const [query, setQuery] = useState('');
  const [highlight, setHighlight] = useState<{ article: string; seq: number } | null>(null);
  const box = useRef<HTMLDivElement>(null);

  // A clicked article badge switches tab and highlights (state adjusted during render).
  const [seenSeq, setSeenSeq] = useState(0);
  if (target && target.seq !== seenSeq) {
    setSeenSeq(target.seq);
    setTab(target.code);
    setHighlight({ article: articleNumber(target.article), seq: target.seq });
  }
  useEffect(() => {
    if (code.status === 'error') console.error('code text load failed', code.error);
  }, [code.status, code.error]);
  const articles = useMemo(() => (current ? splitArticles(current) : []), [current]);
  const q = query.trim().toLowerCase();
  const shown = useMemo(() => (q.length >= 2 ? articles.filter((a) => a.lower.includes(q)) : articles), [articles, q]);
  const hl = highlight?.article ?? null;

  const index = highlight ? shown.findIndex((a) => a.number === highlight.article) : -1;
  const list = useWindow(box, shown, tab, highlight && { key: highlight, index });

  // Brings the highlighted article to the top of the text box and keeps it there until its
  // position holds. Until it is rendered the box scrolls to its estimated place
  // (which renders it); once it is in the page, its real position is corrected each frame,
  // because the articles around it take their measured heights as they render, and a
  // bottom sheet may still be sliding in. It stops when the position has held for a few
  // frames (or the box can scroll no further), or when the reader scrolls first; hidden (a
  // closed bottom sheet), it waits until shown.
  useEffect(() => {
    const c = box.current;
    if (!c || index < 0 || !active) return;
    let raf = 0;
    let frames = 0;
    let held = 0;
    const place = () => {
      const el = c.querySelector<HTMLElement>(`article[data-index="${index}"]`);
      if (!el) {
        c.scrollTop = list.offsets.current[index];
        held = 0;
      } else {
        const off = el.getBoundingClientRect().top - c.getBoundingClientRect().top;
        const before = c.scrollTop;
        if (Math.abs(off) > 1) c.scrollTop += off;
        held = Math.abs(off) <= 1 || c.scrollTop === before ? held + 1 : 0;
      }
      if (held < SETTLED_FRAMES && ++frames < MAX_PLACING_FRAMES) raf = requestAnimationFrame(place);
    };
    const stop = () => cancelAnimationFrame(raf);
    const events = ['wheel', 'touchstart', 'pointerdown', 'keydown'] as const;
    events.forEach((e) => c.addEventListener(e, stop, { passive: true }));
    place();
    return () => {
      stop();
      events.forEach((e) => c.removeEventListener(e, stop));
    };
  }, [highlight, index, shown, active, list.offsets]);
  // A new search shows its hits from the first one; clearing it returns to the highlighted
  // article (a fresh highlight object runs the placement again).
  const searchKey = q.length >= 2 ? q : '';
  useEffect(() => {
    if (searchKey && box.current) box.current.scrollTop = 0;
  }, [searchKey]);
  const search = (next: string) => {
    if (next.trim().length < 2 && q.length >= 2 && highlight) setHighlight({ ...highlight });
    setQuery(next);
  };
  return (
    <section className="code-viewer" aria-label="Coduri">
      <div className="tabs" role="tablist">
        {CODE_TABS.map((t) => (
          <button key={t.id} role="tab" aria-selected={tab === t.id} className={tab === t.id ? 'active' : ''} onClick={() => setTab(t.id)}>
            {t.label}
          </button>
        ))}
      </div>
      <div className="code-tools">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (goto.trim()) setHighlight({ article: articleNumber(goto), seq: Date.now() });
          }}
        >
          <input aria-label="Mergi la articolul" placeholder="Art. nr." value={goto} onChange={(e) => setGoto(e.target.value)} size={6} inputMode="numeric" />
        </form>
        <input aria-label="Caută în cod" placeholder="Caută în cod" value={query} onChange={(e) => search(e.target.value)} />
        {/* What the number counts, kept inside the panel (walkthrough 3, bug 28). */}
        {q.length >= 2 && current && <span className="muted hits">{countOf(shown.length, 'articol', 'articole')}</span>}
      </div>
      <div className="code-text" ref={box} tabIndex={0} aria-label="Textul codului">
        {current === undefined && <p>Se încarcă...</p>}
        {(current === null || (current !== undefined && articles.length === 0)) && <p>Nu există text</p>}
        {shown.length > 0 && <div className="spacer" style={{ height: list.before }} />}
        {list.range.map((i) => {
          const a = shown[i];
          return <ArticleView key={a.idx} ref={list.measure} index={i} of={shown.length} a={a} highlighted={!!a.number && a.number === hl} q={q.length >= 2 ? q : ''} />;
        })}
        {shown.length > 0 && <div className="spacer" style={{ height: list.after }} />}
      </div>
    </section>
  );
}

// An article's heading: "Art. N" and, when the next line is one, its title (not a
// paragraph "(1) …" nor a letter "a) …"), shown bold and kept at the top of the box
// while its article scrolls (sticky); the rest is the body.
export function articleHead(a: Article): { head: string; body: string } {
  if (!a.number) return { head: '', body: a.text };
  const [first, second, ...rest] = a.lines;
  const isTitle = second !== undefined && second.trim() !== '' && second.length <= 160 && !/^\s*(\(|\d|[a-z]\)|-)/.test(second);
  return isTitle ? { head: `${first}\n${second}`, body: rest.join('\n') } : { head: first, body: a.lines.slice(1).join('\n') };
}

type ArticleProps = { a: Article; index: number; of: number; highlighted: boolean; q: string; ref: (el: HTMLElement | null) => void | (() => void) };

const ArticleView = memo(function ArticleView({ a, index, of, highlighted, q, ref }: ArticleProps) {
  const { head, body } = articleHead(a);
  const shown = (t: string) => (q ? mark(t, t.toLowerCase(), q) : t);
  // data-index: its place in the list shown; data-idx: which article it is (measured heights).
  const attrs = { ref, 'data-index': index, 'data-idx': a.idx, 'data-article': a.number, 'aria-posinset': index + 1, 'aria-setsize': of, className: highlighted ? 'highlight' : undefined };
  if (!head) {
    return (
      <article {...attrs}>
        {shown(a.text)}
      </article>
    );
  }
  const [num, title] = head.split('\n');
  return (
    <article {...attrs}>
      <strong className="art-head">
        {shown(num)}
        {title !== undefined && <>{'\n'}<span className="art-title">{shown(title)}</span></>}
      </strong>
      {shown(body)}
    </article>
  );
});

// Every hit of q in the text, wrapped in <mark>.
function mark(text: string, lower: string, q: string) {
  const parts: ReactNode[] = [];
  let from = 0;
  for (let i = lower.indexOf(q); i >= 0; i = lower.indexOf(q, i + q.length)) {
    parts.push(text.slice(from, i), <mark key={i}>{text.slice(i, i + q.length)}</mark>);
    from = i + q.length;
  }
  parts.push(text.slice(from));
  return parts;
}
