import { useState } from 'react';
import { toast } from '../../../components/ui/toast';
import { rotateCode, type JoinCode } from '../api/seminars';
import { fmtWhen } from '../utils/time';

// The group's join code and link: copy, rotate (the old code stops working at once), and an
// optional expiry for the new one.
export function JoinCodeCard({ groupId, code, onChange }: { groupId: string; code: JoinCode | null; onChange: () => void }) {
  const [expires, setExpires] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const link = code ? `${window.location.origin}/join/${code.code}` : '';
  const [now] = useState(() => Date.now());
  const expired = code?.expires_at ? Date.parse(code.expires_at) < now : false;
  const rotate = async () => {
    setBusy(true);
    setError(null);
    try {
      await rotateCode(groupId, expires || null);
      setExpires('');
      toast.success('Cod nou generat', 'Codul vechi nu mai poate fi folosit.');
      onChange();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="code-title">
      <h2 id="code-title">Înscrierea studenților</h2>
      {code ? (
        <div className="join-code">
          <p>
            Cod: <strong className="code-value" data-testid="join-code">{code.code}</strong>
            {code.expires_at && <span className={expired ? 'error' : 'muted'}> · {expired ? 'a expirat' : 'expiră'} pe {fmtWhen(code.expires_at)}</span>}
          </p>
          <p className="join-link">
            Link: <a href={link} data-testid="join-link">{link}</a>{' '}
            <button type="button" onClick={() => void navigator.clipboard?.writeText(link).then(() => toast.success('Link copiat'))}>Copiază linkul</button>
          </p>
        </div>
      ) : (
        <p className="muted">Grupa nu are un cod activ.</p>
      )}
      <div className="row rotate-row">
        <label className="field">
          Expiră (opțional, ora României)
          <input type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
        </label>
        <button type="button" onClick={rotate} disabled={busy}>Generează un cod nou</button>
      </div>
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}
