import { useEffect, useMemo, useRef, useState } from 'react';

export const CODE_TABS = [
  { id: 'codul_civil', label: 'Codul Civil' },
  { id: 'constitutia', label: 'Constituția României' },
  { id: 'codul_penal', label: 'Codul Penal' },
] as const;
export type CodeId = (typeof CODE_TABS)[number]['id'];

type Article = { number: string; lines: string[] };

// Splits a code text into articles ("Art. N" / "Articolul N" headers).
export function splitArticles(text: string): Article[] {
  const out: Article[] = [];
  let cur: Article = { number: '', lines: [] };
  for (const line of text.split('\n')) {
    const m = /^(?:Art\.|Articolul) (\d+(?:\^\d+)?)$/.exec(line);
    if (m) {
      out.push(cur);
      cur = { number: m[1], lines: [line] };
    } else cur.lines.push(line);
  }
  out.push(cur);
  return out;
}

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
// in-text search; articles render only when scrolled near (content-visibility), so the
// 2,674-article Civil Code stays smooth.
export function CodeViewer({ target }: { target: { code: CodeId; article: string; seq: number } | null }) {
  const [tab, setTab] = useState<CodeId>('codul_civil');
  const [text, setText] = useState<Record<string, string | null>>({});
  const [goto, setGoto] = useState('');
  const [query, setQuery] = useState('');
  const [highlight, setHighlight] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);

  // A clicked article badge switches tab and highlights (state adjusted during render).
  const [seenSeq, setSeenSeq] = useState(0);
  if (target && target.seq !== seenSeq) {
    setSeenSeq(target.seq);
    setTab(target.code);
    setHighlight(target.article);
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
  useEffect(() => {
    if (!highlight || !articles.length) return;
    const el = box.current?.querySelector(`[data-article="${CSS.escape(highlight)}"]`);
    el?.scrollIntoView({ block: 'start' });
  }, [highlight, articles]);
  const q = query.trim().toLowerCase();
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
            setHighlight(goto.trim());
          }}
        >
          <input aria-label="Mergi la articolul" placeholder="Art. nr." value={goto} onChange={(e) => setGoto(e.target.value)} size={6} />
        </form>
        <input aria-label="Caută în cod" placeholder="Caută în cod" value={query} onChange={(e) => setQuery(e.target.value)} />
      </div>
      <div className="code-text" ref={box}>
        {text[tab] === undefined && <p>Se încarcă...</p>}
        {text[tab] === null && <p>Nu există text</p>}
        {articles.map((a, i) =>
          q && !a.lines.some((l) => l.toLowerCase().includes(q)) ? null : (
            <article key={i} data-article={a.number} className={a.number && a.number === highlight ? 'highlight' : ''}>
              {a.lines.map((l, j) => (
                <p key={j}>{q ? mark(l, q) : l}</p>
              ))}
            </article>
          ),
        )}
      </div>
    </section>
  );
}

function mark(line: string, q: string) {
  const i = line.toLowerCase().indexOf(q);
  if (i < 0) return line;
  return (
    <>
      {line.slice(0, i)}
      <mark>{line.slice(i, i + q.length)}</mark>
      {line.slice(i + q.length)}
    </>
  );
}
