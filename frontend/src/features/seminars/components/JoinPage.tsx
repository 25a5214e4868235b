import { useState } from 'react';
import { useQuery } from '../../../lib/query';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { toast } from '../../../components/ui/toast';
import { joinGroup, previewCode, SeminarError, UNKNOWN_CODE, type Preview } from '../api/seminars';
import '../seminars.css';

// What joining means, shown before the student agrees (issue 30, verbatim).
export const CONSENT = 'Asistentul grupei va vedea soluțiile, notele și rundele cu tutorele pentru temele acestei grupe';

type Load = { state: 'loading' } | { state: 'ready'; group: Preview } | { state: 'error'; message: string };

// /join/<code>: the group behind a join code, what its staff will see, then "Intră în grupă".
export default function JoinPage() {
  const { code = '' } = useParams();
  const nav = useNavigate();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Not cached: a rotated or expired code must be asked again each time.
  const q = useQuery(['seminar-preview', code], () => previewCode(code.trim().toUpperCase()), { gcTime: 0 });
  const load: Load =
    q.status === 'loading' ? { state: 'loading' }
    : q.status === 'error' ? { state: 'error', message: (q.error as Error).message }
    : q.data ? { state: 'ready', group: q.data }
    : { state: 'error', message: UNKNOWN_CODE };
  const join = async () => {
    setBusy(true);
    setError(null);
    try {
      await joinGroup(code.trim().toUpperCase());
      toast.success('Te-ai înscris în grupă', load.state === 'ready' ? load.group.name : undefined);
      nav('/dashboard');
    } catch (e) {
      setError((e as SeminarError).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="page seminar-page">
      <section className="card join-card" aria-labelledby="join-title">
        <h1 id="join-title">Intră într-o grupă de seminar</h1>
        {load.state === 'loading' && <p className="muted" role="status">Se verifică codul...</p>}
        {load.state === 'error' && (
          <>
            <p className="error" role="alert">{load.message}</p>
            <Link to="/dashboard">Înapoi la spețe</Link>
          </>
        )}
        {load.state === 'ready' && (
          <>
            <dl className="group-facts">
              <dt>Grupa</dt><dd data-testid="join-group-name">{load.group.name}</dd>
              <dt>Facultatea</dt><dd>{load.group.university_name}</dd>
              <dt>Anul universitar</dt><dd>{load.group.academic_year}, semestrul {load.group.semester}</dd>
              {load.group.staff.length > 0 && (<><dt>Cadre didactice</dt><dd>{load.group.staff.map((s) => s.name || s.username).join(', ')}</dd></>)}
            </dl>
            {load.group.is_staff ? (
              <p className="banner" role="status">Faci parte din echipa acestei grupe; nu te poți înscrie ca student.</p>
            ) : load.group.already_member ? (
              <p className="banner" role="status">Ești deja membru al acestei grupe. <Link to="/dashboard">Vezi temele</Link></p>
            ) : (
              <>
                <p className="consent callout" data-testid="consent">{CONSENT}.</p>
                <p className="muted">Poți părăsi grupa oricând din pagina <Link to="/seminar">Grupele mele</Link>; ce ai predat înainte rămâne la asistent.</p>
                {error && <p className="error" role="alert">{error}</p>}
                <div className="row">
                  <Link className="cancel-link" to="/dashboard">Renunță</Link>
                  <button type="button" className="primary" disabled={busy} onClick={join}>Intră în grupă</button>
                </div>
              </>
            )}
          </>
        )}
      </section>
    </main>
  );
}
