import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { authActions, reloadProfile, useUser } from '../../../lib/auth/store';
import { createProfile } from '../api/auth';
import { validateProfile } from '../../../lib/validation';
import { Brand } from './pages';
import { UniversitySelect, UsernameStatusText } from './profileFields';
import { useUniversities, useUsernameCheck } from '../hooks/useProfileFields';

const meta = (m: Record<string, unknown> | undefined, k: string) => (typeof m?.[k] === 'string' ? (m[k] as string) : '');

// An account without a profile (made before sign-up created the profile with the account,
// or by the admin API) completes it here on sign-in, with create_user_profile as itself.
// The form starts from what the sign-up sent, if anything.
export function CompleteProfilePage() {
  const user = useUser();
  const { signOut } = authActions;
  const nav = useNavigate();
  const m = user?.user_metadata;
  const [f, setF] = useState({ name: meta(m, 'name'), username: meta(m, 'username'), universityCode: meta(m, 'university_code') });
  const unis = useUniversities();
  const { status, setStatus, settle } = useUsernameCheck(f.username);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!user) return;
    setBusy(true);
    try {
      const settled = status === 'checking' ? await settle() : status;
      const v = validateProfile(f, settled, unis.map((u) => u.code));
      setError(v);
      if (v) return;
      const uni = unis.find((u) => u.code === f.universityCode)!;
      const pErr = await createProfile({
        p_id: user.id,
        p_email: user.email ?? '',
        p_name: f.name.trim(),
        p_username: f.username.trim(),
        p_university_code: uni.code,
        p_university_category: uni.category,
        p_university_name: uni.name,
      }).then(() => null, (err: { message: string }) => err);
      if (pErr) {
        if (pErr.message === 'Username is already taken') setStatus('taken');
        setError(pErr.message === 'Username is already taken' ? pErr.message : 'Failed to create user profile: ' + pErr.message);
        return;
      }
      await reloadProfile();
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="auth-page">
      <form className="card auth-card" onSubmit={submit} noValidate>
        <Brand />
        <h2>Completează-ți profilul</h2>
        <p className="muted">Contul tău ({user?.email}) nu are încă un profil. Completează datele de mai jos pentru a continua.</p>
        <label>Nume complet<input value={f.name} onChange={set('name')} autoComplete="name" /></label>
        <label>
          Nume de utilizator
          <input value={f.username} onChange={set('username')} autoComplete="username" aria-describedby="username-status" />
          <UsernameStatusText status={status} />
        </label>
        <label>
          Universitate
          <UniversitySelect unis={unis} value={f.universityCode} onChange={set('universityCode')} />
        </label>
        {error && <p className="error" role="alert">{error}</p>}
        <button className="primary" disabled={busy}>{busy ? 'Se salvează...' : 'Salvează profilul'}</button>
        <button
          type="button"
          className="link"
          onClick={async () => {
            await signOut();
            nav('/login');
          }}
        >
          Deconectează-te
        </button>
      </form>
    </main>
  );
}
