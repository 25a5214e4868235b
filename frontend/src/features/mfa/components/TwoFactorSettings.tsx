import { useState } from 'react';
import { useQuery } from '../../../lib/query';
import type { Factor } from '@supabase/supabase-js';
import { toast } from '../../../components/ui/toast';
import { TotpChallenge, TotpEnrol } from './TotpForms';
import { currentAAL, removeFactor, verifiedTotp } from '../api/totp';

type Mode = 'view' | 'enrol' | 'confirm-remove';

// Settings → "Autentificare în doi pași": any user may add an authenticator app, and remove
// it (after a code, when the session is not already aal2: GoTrue requires aal2).
export function TwoFactorSettings() {
  const q = useQuery(['totp-factor'], verifiedTotp);
  const factor: Factor | null | undefined = q.data;
  const [mode, setMode] = useState<Mode>('view');
  const [actionError, setError] = useState<string | null>(null);
  const error = actionError ?? (q.status === 'error' ? (q.error as Error).message : null);
  const load = q.refetch;

  const remove = async () => {
    try {
      await removeFactor(factor!.id);
      toast.success('Aplicația de autentificare a fost eliminată.');
      setMode('view');
      await load();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const askRemove = async () => {
    setError(null);
    if ((await currentAAL()) === 'aal2') await remove();
    else setMode('confirm-remove');
  };

  return (
    <section className="card mfa" aria-labelledby="mfa-title">
      <h2 id="mfa-title">Autentificare în doi pași</h2>
      {error && <p className="error" role="alert">{error}</p>}
      {factor === undefined && !error && <p className="muted" role="status">Se încarcă...</p>}
      {factor === null && mode === 'view' && (
        <>
          <p>Dezactivată. La conectare ți se cere doar parola.</p>
          <button className="primary" onClick={() => setMode('enrol')}>Configurează aplicația de autentificare</button>
        </>
      )}
      {factor === null && mode === 'enrol' && (
        <>
          <TotpEnrol onDone={async () => {
            toast.success('Autentificarea în doi pași a fost activată.');
            setMode('view');
            await load();
          }} />
          <button className="link" onClick={() => setMode('view')}>Renunță</button>
        </>
      )}
      {factor && (
        <>
          <p>Activată: aplicație de autentificare, adăugată la {new Date(factor.created_at).toLocaleDateString('ro-RO')}.</p>
          {mode === 'confirm-remove' ? (
            <>
              <p>Pentru a elimina aplicația, introdu un cod generat de ea.</p>
              <TotpChallenge factorId={factor.id} submitLabel="Confirmă eliminarea" onDone={() => void remove()} />
              <button className="link" onClick={() => setMode('view')}>Renunță</button>
            </>
          ) : (
            <button onClick={() => void askRemove()}>Elimină aplicația de autentificare</button>
          )}
        </>
      )}
    </section>
  );
}
