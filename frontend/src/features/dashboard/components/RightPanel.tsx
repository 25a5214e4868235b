import { useEffect, useRef, useState } from 'react';
import { CHAT_MIN, clampViewer, VIEWER_DEFAULT } from '../../../lib/validation';
import { CodeViewer, type CodeId } from '../../../components/code-viewer/CodeViewer';
import { TutorChat } from './TutorChat';

export const VIEWER_KEY = 'casus.codeViewerHeight';
const DIVIDER = 8; // px, .divider's height

export type Target = { code: CodeId; article: string; seq: number };
export type Sheet = 'viewer' | 'chat' | null;

// The right panel: the code viewer above the tutor with a draggable divider; on a phone,
// two bottom sheets.
export function RightPanel({ target, home, caseId, mobile, sheet, onClose }: { target: Target | null; home?: CodeId; caseId: string | null; mobile: boolean; sheet: Sheet; onClose: () => void }) {
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
        {/* A <div>: an <aside> may not take the dialog role. */}
        <div
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
            <CodeViewer target={target} home={home} active={sheet === 'viewer'} />
          </div>
          <div className="sheet-body" hidden={sheet !== 'chat'}>
            <TutorChat caseId={caseId} />
          </div>
        </div>
      </>
    );
  }
  return (
    <aside className="right-panel" ref={panel}>
      <div style={{ height: shown }} className="viewer-box" data-testid="viewer-box">
        <CodeViewer target={target} home={home} />
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
