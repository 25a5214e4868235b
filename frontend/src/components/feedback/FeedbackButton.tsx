import { lazy, Suspense, useState } from 'react';

// The dialog (its form, validation and sender) loads on the first click: every page shows
// the button, few visitors open it, and the first page's JavaScript stays within budget.
const FeedbackDialog = lazy(() => import('./FeedbackDialog').then((m) => ({ default: m.FeedbackDialog })));

export function FeedbackButton({ label = 'Trimite feedback' }: { label?: string }) {
  const [open, setOpen] = useState(false);
  const [wanted, setWanted] = useState(false);
  return (
    <>
      <button type="button" className="link" onClick={() => { setWanted(true); setOpen(true); }}>{label}</button>
      {wanted && <Suspense fallback={null}><FeedbackDialog open={open} onClose={() => setOpen(false)} /></Suspense>}
    </>
  );
}
