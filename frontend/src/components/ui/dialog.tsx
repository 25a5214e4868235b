import { useEffect, useRef, type ReactNode } from 'react';

// A modal dialog on the native <dialog> element (focus trap, Escape and backdrop close),
// mounted only while open so closed dialogs leave nothing in the page.
export function Dialog({ open, onClose, title, children }: { open: boolean; onClose: () => void; title: string; children: ReactNode }) {
  if (!open) return null;
  return (
    <OpenDialog onClose={onClose} title={title}>
      {children}
    </OpenDialog>
  );
}

function OpenDialog({ onClose, title, children }: { onClose: () => void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} className="dialog" onClose={onClose} onClick={(e) => e.target === ref.current && onClose()} aria-label={title}>
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}
