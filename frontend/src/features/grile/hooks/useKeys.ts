import { useEffect, useRef } from 'react';
import type { Letter } from '../api/grile';

const KEY_LETTER: Record<string, Letter> = { '1': 'a', '2': 'b', '3': 'c', a: 'a', b: 'b', c: 'c' };

// Keyboard-first answering: 1/2/3 or a/b/c toggle an option, Enter submits or moves on.
// Keys typed into a field, or with a modifier, are left alone.
export function useAnswerKeys(handlers: { toggle: (l: Letter) => void; enter: () => void; prev?: () => void; next?: () => void }, active = true) {
  const h = useRef(handlers);
  useEffect(() => {
    h.current = handlers;
  });
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.closest('input, textarea, select, [contenteditable="true"], dialog, .code-viewer, .grile-code-panel'))) return;
      const letter = KEY_LETTER[e.key.toLowerCase()];
      if (letter) {
        e.preventDefault();
        h.current.toggle(letter);
      } else if (e.key === 'Enter') {
        // A focused button or link acts by itself, except the options (Enter submits).
        if (t?.closest('button, a') && !t.closest('.grila-option')) return;
        e.preventDefault();
        h.current.enter();
      } else if (e.key === 'ArrowLeft' && h.current.prev) {
        h.current.prev();
      } else if (e.key === 'ArrowRight' && h.current.next) {
        h.current.next();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active]);
}
