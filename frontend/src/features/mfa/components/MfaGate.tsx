import type { ReactNode } from 'react';
import { useQuery } from '../../../lib/query';
import { TotpChallenge, TotpEnrol } from './TotpForms';
import { mfaStatus, verifiedTotp } from '../api/totp';

type GateState = { step: 'loading' } | { step: 'open' } | { step: 'enrol' } | { step: 'challenge'; factorId: string } | { step: 'error'; message: string };

// In front of the admin pages: a user whose role requires a second factor (the database
// decides, MFA_REQUIRED_ROLES) is asked to enrol an authenticator app if they have none,
// and for a code when their session is below aal2. The database refuses their admin data
// calls in that state anyway; this screen is how they get past it.
async function gateState(): Promise<GateState> {
  try {
    const st = await mfaStatus();
    if (st.required && !st.enrolled) return { step: 'enrol' };
    if (!st.satisfied) {
      const factor = await verifiedTotp();
      if (factor) return { step: 'challenge', factorId: factor.id };
    }
    return { step: 'open' };
  } catch (err) {
    return { step: 'error', message: (err as Error).message };
  }
}

export function MfaGate({ children }: { children: ReactNode }) {
  // Asked afresh each time the gate is shown (gcTime 0), and again after an enrolment or a code.
  const gate = useQuery(['mfa-gate'], gateState, { gcTime: 0 });
  const state: GateState = gate.data ?? { step: 'loading' };
  const check = gate.refetch;
  switch (state.step) {
    case 'open':
      return <>{children}</>;
    case 'loading':
      return <div className="loading" role="status" aria-live="polite"><span className="spinner" aria-hidden /> Se încarcă...</div>;
    case 'error':
      return <main className="page"><section className="card"><p className="error" role="alert">{state.message}</p></section></main>;
    case 'enrol':
      return (
        <main className="page">
          <section className="card mfa">
            <h1>Autentificare în doi pași obligatorie</h1>
            <p>Contul tău are drepturi de administrare. Pentru a le folosi, protejează-l cu o aplicație de autentificare.</p>
            <TotpEnrol onDone={() => void check()} />
          </section>
        </main>
      );
    case 'challenge':
      return (
        <main className="page">
          <section className="card mfa">
            <h1>Confirmă autentificarea</h1>
            <p>Introdu codul de 6 cifre din aplicația de autentificare pentru a continua.</p>
            <TotpChallenge factorId={state.factorId} onDone={() => void check()} />
          </section>
        </main>
      );
  }
}
