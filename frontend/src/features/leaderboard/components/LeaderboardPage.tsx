import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useProfile, useUser } from '../../../lib/auth/store';
import { TOP_LIMIT, type BoardRow, type Period, type Scope } from '../api/leaderboard';
import { useLeaderboard } from '../hooks/useLeaderboard';
import { useLeaderboardOptOut } from '../hooks/useLeaderboardOptOut';
import { BoardTable } from './BoardTable';
import { Tabs } from './Tabs';
import { pointsLabel } from '../format';
import '../leaderboard.css';

const PERIODS: { value: Period; label: string }[] = [
  { value: 'week', label: 'Săptămâna aceasta' },
  { value: 'all', label: 'Tot timpul' },
];
const SCOPES: { value: Scope; label: string }[] = [
  { value: 'global', label: 'Global' },
  { value: 'university', label: 'Universitatea mea' },
];

export default function LeaderboardPage() {
  const user = useUser();
  const profile = useProfile();
  const [period, setPeriod] = useState<Period>('week');
  const [scope, setScope] = useState<Scope>('global');
  const { state, reload } = useLeaderboard(period, scope);
  const { hidden } = useLeaderboardOptOut(user?.id);
  const where = scope === 'university' ? (profile?.university_code ? `universitatea ta (${profile.university_code})` : 'universitatea ta') : 'toți studenții';
  return (
    <main className="page leaderboard">
      <section className="card">
        <h1>Clasament</h1>
        <p className="muted">
          10 puncte pentru fiecare caz rezolvat (primul punctaj peste 50 la un caz verificat) și 1 punct pentru fiecare grilă
          la care primul tău răspuns, dat într-o simulare de examen încheiată, este corect: o grilă exersată înainte sau
          greșită o dată nu mai aduce puncte. Săptămâna începe lunea la 00:00, ora României.
        </p>
        <div className="board-controls">
          <Tabs label="Perioada" options={PERIODS} value={period} onChange={setPeriod} controls="clasament-continut" />
          <Tabs label="Clasamentul" options={SCOPES} value={scope} onChange={setScope} controls="clasament-continut" />
        </div>
      </section>
      <div id="clasament-continut" className="board-panels" aria-busy={state.status === 'loading'}>
        {state.status === 'loading' && (
          <section className="card">
            <div className="loading" role="status">
              <span className="spinner" aria-hidden /> Se încarcă clasamentul...
            </div>
          </section>
        )}
        {state.status === 'error' && (
          <section className="card" role="alert">
            <p className="error">Clasamentul nu a putut fi încărcat.</p>
            <button type="button" onClick={reload}>Încearcă din nou</button>
          </section>
        )}
        {state.status === 'ready' && (
          <>
            <section className="card" aria-labelledby="pozitia-ta">
              <h2 id="pozitia-ta">Poziția ta</h2>
              <MyPosition rows={state.around} hidden={hidden === true} scope={scope} noUniversity={!profile?.university_code} />
            </section>
            <section className="card" aria-labelledby="primii">
              <h2 id="primii">Primii {TOP_LIMIT} · {where}</h2>
              {state.top.length === 0 ? (
                <p className="muted">Nimeni nu are încă puncte în această perioadă.</p>
              ) : (
                <BoardTable rows={state.top} label="Clasament" />
              )}
            </section>
          </>
        )}
      </div>
    </main>
  );
}

function MyPosition({ rows, hidden, scope, noUniversity }: { rows: BoardRow[]; hidden: boolean; scope: Scope; noUniversity: boolean }) {
  const me = rows.find((r) => r.is_self);
  if (!me) {
    return scope === 'university' && noUniversity ? (
      <p className="muted">Profilul tău nu are o universitate, așa că nu ai un clasament al universității.</p>
    ) : (
      <p className="muted">Poziția ta nu poate fi afișată.</p>
    );
  }
  if (hidden) {
    return (
      <div className="board-hidden" role="note">
        <p>
          Ai ales să nu apari în clasamente: nimeni altcineva nu te vede. Locul tău ar fi <strong>{me.rank}</strong>, cu{' '}
          <strong>{pointsLabel(me.points)}</strong>.
        </p>
        <p>
          <Link to="/settings">Schimbă în Setări</Link>
        </p>
      </div>
    );
  }
  return (
    <>
      {me.points === 0 && (
        <p className="muted">Încă nu ai puncte în această perioadă. Rezolvă un caz sau o simulare de grile ca să urci în clasament.</p>
      )}
      <BoardTable rows={rows} label="Poziția ta" />
    </>
  );
}
