import { memo, type ReactNode, useEffect, useMemo, useRef, useState } from 'react';

export const CODE_TABS = [
  { id: 'codul_civil', label: 'Codul Civil' },
  { id: 'constitutia', label: 'Constituția României' },
  { id: 'codul_penal', label: 'Codul Penal' },
] as const;
export type CodeId = (typeof CODE_TABS)[number]['id'];

export type Article = { idx: number; number: string; lines: string[]; text: string; lower: string };

// Splits a code text into articles ("Art. N" / "Articolul N" headers).
export function splitArticles(text: string): Article[] {
  const out: Article[] = [];
  let cur: string[] = [];
  let num = '';
  const flush = () => {
    const t = cur.join('\n');
    if (num || t.trim()) out.push({ idx: out.length, number: num, lines: cur, text: t, lower: t.toLowerCase() });
  };
  for (const line of text.split('\n')) {
    const m = /^(?:Art\.|Articolul) (\d+(?:\^\d+)?)$/.exec(line);
    if (m) {
      flush();
      num = m[1];
      cur = [line];
    } else cur.push(line);
  }
  flush();
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

// The legal-code viewer: texts load on first selection of a tab; "go to article" and
// in-text search. Each article is one memoised element whose text is a single pre-wrapped
// node, and the browser skips the layout and paint of those off screen
// (content-visibility), so the 2,674-article Civil Code renders once and a jump only
// re-renders the two articles whose highlight changes.
export function CodeViewer({ target, active = true }: { target: { code: CodeId; article: string; seq: number } | null; active?: boolean }) {
  const [tab, setTab] = useState<CodeId>(target?.code ?? 'codul_civil');
  const [text, setText] = useState<Record<string, string | null>>({});
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
    if (text[tab] !== undefined) return;
    loadText(tab)
      .then((t) => setText((s) => ({ ...s, [tab]: t })))
      .catch((e) => {
        console.error('code text load failed', e);
        setText((s) => ({ ...s, [tab]: null }));
      });
  }, [tab, text]);
  const articles = useMemo(() => (text[tab] ? splitArticles(text[tab]!) : []), [text, tab]);
  // Brings the highlighted article to the top of the text box and keeps it there until
  // its position holds. The highlighted article is always rendered (CSS exempts it from
  // content-visibility), but the articles around it start with estimated heights and take
  // their real ones as the browser renders what scrolls into view, which moves the target;
  // a bottom sheet may also still be sliding in. So the position is corrected each frame
  // until it has held for a few frames (or the box can scroll no further), unless the
  // reader scrolls first; hidden (a closed bottom sheet), it waits until shown.
  useEffect(() => {
    const el = highlight && box.current?.querySelector<HTMLElement>(`[data-article="${CSS.escape(highlight.article)}"]`);
    const c = box.current;
    if (!el || !c || !active) return;
    let raf = 0;
    let frames = 0;
    let held = 0;
    const place = () => {
      const off = el.getBoundingClientRect().top - c.getBoundingClientRect().top;
      const before = c.scrollTop;
      if (Math.abs(off) > 1) c.scrollTop += off;
      held = Math.abs(off) <= 1 || c.scrollTop === before ? held + 1 : 0;
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
  }, [highlight, articles, active]);
  const q = query.trim().toLowerCase();
  const shown = useMemo(() => (q.length >= 2 ? articles.filter((a) => a.lower.includes(q)) : articles), [articles, q]);
  const hl = highlight?.article ?? null;
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
        {q.length >= 2 && text[tab] && <span className="muted hits">{shown.length}</span>}
      </div>
      <div className="code-text" ref={box} tabIndex={0} aria-label="Textul codului">
        {text[tab] === undefined && <p>Se încarcă...</p>}
        {(text[tab] === null || (text[tab] !== undefined && articles.length === 0)) && <p>Nu există text</p>}
        {shown.map((a) => (
          <ArticleView key={a.idx} a={a} highlighted={!!a.number && a.number === hl} q={q.length >= 2 ? q : ''} />
        ))}
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

const ArticleView = memo(function ArticleView({ a, highlighted, q }: { a: Article; highlighted: boolean; q: string }) {
  const { head, body } = articleHead(a);
  const shown = (t: string) => (q ? mark(t, t.toLowerCase(), q) : t);
  if (!head) {
    return (
      <article data-article={a.number} className={highlighted ? 'highlight' : undefined}>
        {shown(a.text)}
      </article>
    );
  }
  const [num, title] = head.split('\n');
  return (
    <article data-article={a.number} className={highlighted ? 'highlight' : undefined}>
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
