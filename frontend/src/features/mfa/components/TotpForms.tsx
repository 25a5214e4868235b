import { useState, type FormEvent } from 'react';
import { useQuery } from '../../../lib/query';
import { confirmCode, startEnrolment, type Enrolment } from '../api/totp';

function CodeForm({ submitLabel, onSubmit }: { submitLabel: string; onSubmit: (code: string) => Promise<void> }) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSubmit(code);
    } catch (err) {
      setError((err as Error).message);
      setCode('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="mfa-code" onSubmit={submit}>
      <label htmlFor="mfa-code">Cod din aplicație</label>
      <input id="mfa-code" value={code} onChange={(e) => setCode(e.target.value)} inputMode="numeric" autoComplete="one-time-code"
        pattern="[0-9 ]{6,7}" maxLength={7} required autoFocus placeholder="123456" />
      <button className="primary" type="submit" disabled={busy}>{submitLabel}</button>
      {error && <p className="error" role="alert">{error}</p>}
    </form>
  );
}

/** Enrols an authenticator app: QR code and key, then a first code that verifies it. */
export function TotpEnrol({ onDone }: { onDone: () => void }) {
  // A new factor per enrolment screen: never cached for a later one (gcTime 0).
  const q = useQuery(['totp-enrolment'], startEnrolment, { gcTime: 0 });
  const enrolment: Enrolment | undefined = q.data;
  const error = q.status === 'error' ? (q.error as Error).message : null;
  if (error) return <p className="error" role="alert">{error}</p>;
  if (!enrolment) return <p className="muted" role="status">Se pregătește codul QR...</p>;
  return (
    <div className="mfa-enrol">
      <ol>
        <li>Deschide aplicația de autentificare (de exemplu Google Authenticator, Microsoft Authenticator sau Aegis) și scanează codul QR.</li>
        <li>Introdu codul de 6 cifre afișat de aplicație.</li>
      </ol>
      <img className="mfa-qr" src={enrolment.qrCode} alt="Cod QR pentru aplicația de autentificare" width={220} height={220} />
      <p className="muted">Nu poți scana? Introdu manual cheia: <code data-testid="mfa-secret">{enrolment.secret}</code></p>
      <CodeForm submitLabel="Activează" onSubmit={async (code) => {
        await confirmCode(enrolment.factorId, code);
        onDone();
      }} />
    </div>
  );
}

/** Asks for a code from the enrolled app and raises the session to aal2. */
export function TotpChallenge({ factorId, submitLabel = 'Verifică', onDone }: { factorId: string; submitLabel?: string; onDone: () => void }) {
  return <CodeForm submitLabel={submitLabel} onSubmit={async (code) => {
    await confirmCode(factorId, code);
    onDone();
  }} />;
}
