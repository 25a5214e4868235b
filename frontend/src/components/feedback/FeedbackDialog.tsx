import { useState, type FormEvent } from 'react';
import { sendFeedback } from '../../lib/feedback';
import { useAuthStore } from '../../lib/auth/store';
import { validateFeedback } from '../../lib/validation';
import { Dialog } from '../ui/dialog';

// Anyone can send feedback: anonymous visitors may leave an e-mail, signed-in users
// are identified by their id instead.
export function FeedbackDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const user = useAuthStore((s) => s.user);
  const [body, setBody] = useState('');
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v = validateFeedback(body, user ? '' : email);
    setError(v);
    if (v) return;
    setBusy(true);
    const failure = await sendFeedback(user?.id ?? null, email, body);
    setBusy(false);
    if (failure) {
      setError(failure);
      return;
    }
    setDone(true);
    setTimeout(() => {
      setDone(false);
      setBody('');
      setEmail('');
      onClose();
    }, 1500);
  };
  return (
    <Dialog open={open} onClose={onClose} title="Trimite feedback">
      <form onSubmit={submit} noValidate>
        <p>Orice părere ne ajută: ce îți place, ce lipsește, ce nu merge.</p>
        {!user && <label>Email (opțional)<input type="email" value={email} onChange={(e) => setEmail(e.target.value)} /></label>}
        <label>Mesaj<textarea rows={6} value={body} onChange={(e) => setBody(e.target.value)} /></label>
        {error && <p className="error" role="alert">{error}</p>}
        {done && (
          <p className="success" role="status">
            <strong>Mulțumim!</strong> Feedback-ul tău a fost trimis cu succes.
          </p>
        )}
        <div className="row">
          <button type="button" onClick={onClose}>Anulează</button>
          <button className="primary" disabled={busy || done}>Trimite</button>
        </div>
      </form>
    </Dialog>
  );
}
