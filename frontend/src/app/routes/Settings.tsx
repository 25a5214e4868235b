import { useIsAdmin, useProfile, useUser } from '../../lib/auth/store';
import { TwoFactorSettings } from '../../features/mfa/components/TwoFactorSettings';
import { OptOutSetting } from '../../features/leaderboard/components/OptOutSetting';

// /settings: the profile, with the settings of other features (two-factor sign-in, the
// leaderboard opt-out) composed here.
export default function Settings() {
  const profile = useProfile();
  const user = useUser();
  const admin = useIsAdmin();
  const created = profile?.created_at ?? user?.created_at;
  return (
    <main className="page">
      <section className="card">
        <h1>Setări</h1>
        <dl className="profile">
          <dt>Nume complet</dt><dd>{profile?.name ?? '—'}</dd>
          <dt>Nume de utilizator (afișat în clasamente)</dt><dd>{profile?.username ?? '—'}</dd>
          <dt>Email</dt><dd>{profile?.email ?? user?.email}</dd>
          {profile?.university_name && (<><dt>Universitate</dt><dd>{profile.university_name}</dd></>)}
          {profile?.university_code && (<><dt>Cod universitate</dt><dd>{profile.university_code}</dd></>)}
          {profile?.university_category && (<><dt>Categorie</dt><dd>{profile.university_category}</dd></>)}
          <dt>Cont creat</dt><dd>{created ? new Date(created).toLocaleDateString('ro-RO') : '—'}</dd>
          <dt>ID utilizator</dt><dd><code>{user?.id}</code></dd>
        </dl>
        {admin && <span className="badge">Admin</span>}
        <p className="muted">Datele profilului nu pot fi modificate din aplicație. Pentru modificări, contactează un administrator.</p>
        <OptOutSetting />
      </section>
      <TwoFactorSettings />
    </main>
  );
}
