import { useEffect, useRef, type ReactNode } from 'react';

// A modal dialog on the native <dialog> element: focus trap, Escape and backdrop close.
export function Dialog({ open, onClose, title, children }: { open: boolean; onClose: () => void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" onClose={onClose} onClick={(e) => e.target === ref.current && onClose()} aria-label={title}>
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}
