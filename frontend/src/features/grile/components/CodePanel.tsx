import { useEffect, useRef } from 'react';
import { CodeViewer, type CodeId } from '../../../components/code-viewer/CodeViewer';
import type { Citation } from '../api/grile';

export type ArticleTarget = { code: CodeId; article: string; seq: number };

const CODE_OF: Record<Citation['code'], CodeId> = { civil: 'codul_civil', penal: 'codul_penal', constitutional: 'constitutia' };

export function targetOf(c: Citation): ArticleTarget {
  return { code: CODE_OF[c.code], article: c.article, seq: performance.now() };
}

// The case page's code viewer beside the grilă (a bottom sheet on a phone): opened by an
// article badge, closed with its button or Escape.
export function CodePanel({ target, onClose }: { target: ArticleTarget | null; onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!target) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [target, onClose]);
  if (!target) return null;
  return (
    // A <div>: an <aside> may not take the dialog role.
    <div className="grile-code-panel" role="dialog" aria-label="Coduri">
      <div className="sheet-head">
        <strong>Coduri</strong>
        <button ref={close} className="close" aria-label="Închide codul" onClick={onClose}>×</button>
      </div>
      <div className="grile-code-body">
        <CodeViewer target={target} />
      </div>
    </div>
  );
}
