import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router-dom';
import { authActions, useAuthStore, useUser } from '../../../lib/auth/store';
import { sendPasswordReset, updatePassword } from '../api/auth';
import { invalidFields, validateForgot, validateLogin, validateReset, validateSignup } from '../../../lib/validation';
import { UniversitySelect, UsernameStatusText } from './profileFields';
import { useUniversities, useUsernameCheck } from '../hooks/useProfileFields';
import { Dialog } from '../../../components/ui/dialog';
import { FeedbackButton } from '../../../components/feedback/FeedbackButton';
import { ScaleIcon } from '../../../components/ui/icons';
import { forgetLinkError, linkError } from '../../../lib/linkError';

const OTHER_UNIVERSITY = 'Other';
const GENERIC = 'A apărut o eroare. Te rog încearcă din nou.';

export function Brand() {
  return (
    <div className="brand">
      <span className="logo"><ScaleIcon /></span>
      <h1>Casus</h1>
      <span className="badge">v0.1</span>
    </div>
  );
}

export function Tagline() {
  return (
    <>
      <p className="tagline">Platforma AI pentru studenții la drept: devino un jurist mai bun, treci examenele și acumulează cunoștințe.</p>
      <p className="beta-note">Versiune beta, experimentală: poate conține erori.</p>
    </>
  );
}

// Where signing in leads: back to a seminar join link opened while signed out (the route
// guard passes it in the location's state), else the dashboard.
function useAfterSignIn(): string {
  const from = (useLocation().state as { from?: unknown } | null)?.from;
  return typeof from === 'string' && /^\/join\/[A-Za-z0-9-]{1,32}$/.test(from) ? from : '/dashboard';
}

export function LoginPage() {
  const user = useUser();
  const next = useAfterSignIn();
  const { signIn, tryAsVisitor } = authActions;
  const nav = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // A refused confirmation link lands here: say why (walkthrough 3, bug 16).
  const [error, setError] = useState<string | null>(linkError);
  useEffect(() => forgetLinkError, []);
  const [busy, setBusy] = useState(false);
  const [forgot, setForgot] = useState(false);
  const [checked, setChecked] = useState<string | null>(null);
  const bad = invalidFields(checked, { email, password });
  useEffect(() => {
    // A visitor (anonymous session) may still sign in to an account here.
    if (user && !user.is_anonymous) nav(next, { replace: true });
  }, [user, nav, next]);
  const tryCase = async () => {
    setError(null);
    setBusy(true);
    try {
      await tryAsVisitor();
      nav('/try');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v = validateLogin(email, password);
    setError(v);
    setChecked(v);
    if (v) return;
    setBusy(true);
    try {
      await signIn(email, password);
      nav(next);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="auth-page login">
      <form className="card auth-card" onSubmit={submit} noValidate>
        <Brand />
        <Tagline />
        <label>
          Email
          <input type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} aria-invalid={bad.has('email') || undefined} aria-describedby={bad.has('email') ? 'login-error' : undefined} />
        </label>
        <label>
          Parolă
          <input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} aria-invalid={bad.has('password') || undefined} aria-describedby={bad.has('password') ? 'login-error' : undefined} />
        </label>
        {error && <p className="error" role="alert" id="login-error">{error}</p>}
        <button className="primary" disabled={busy}>{busy ? 'Se conectează...' : 'Conectare'}</button>
        <button type="button" className="link" onClick={() => setForgot(true)}>Ai uitat parola?</button>
        <p>
          Nu ai cont? <Link to="/signup">Creează un cont</Link>
        </p>
        <button type="button" className="try-case" disabled={busy} onClick={tryCase}>Încearcă o speță</button>
        <p className="muted">Citește o speță ușoară și scrie-ți soluția, fără cont.</p>
      </form>
      {/* Outside the login form: a dialog's form must not nest in another form. */}
      <FeedbackButton />
      {/* Mounted only while open: reopened, it starts empty (walkthrough 3, bug 15). */}
      {forgot && <ForgotPasswordDialog open onClose={() => setForgot(false)} />}
    </main>
  );
}

export function SignupPage() {
  const user = useUser();
  const { signUp, convertVisitor } = authActions;
  const visitor = !!user?.is_anonymous;
  const nav = useNavigate();
  const [f, setF] = useState({ name: '', username: '', universityCode: '', email: '', password: '', confirmPassword: '' });
  // "Other (Please Specify)" asks which university (walkthrough 3, bug 18); the profile
  // keeps what is typed as the university's name (create_user_profile).
  const [otherName, setOtherName] = useState('');
  const unis = useUniversities();
  // Live availability from 3 characters, with the spec's fallback lookup on error.
  const { status, setStatus, settle } = useUsernameCheck(f.username);
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [checked, setChecked] = useState<string | null>(null);
  const bad = invalidFields(checked, f);
  const mark = (k: keyof typeof f) => (bad.has(k) ? { 'aria-invalid': true, 'aria-describedby': 'signup-error' } : {});
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      // Submitted while the username check runs: its answer first (issue 19, bug 1).
      const settled = status === 'checking' ? await settle() : status;
      const v = validateSignup(f, settled, unis.map((u) => u.code));
      setError(v);
      setChecked(v);
      if (v) return;
      const uni = unis.find((u) => u.code === f.universityCode)!;
      const details = { name: f.name.trim(), username: f.username.trim(), university_code: uni.code, university_category: uni.category, university_name: (uni.code === OTHER_UNIVERSITY && otherName.trim()) || uni.name };
      if (visitor) {
        // The visitor's anonymous user becomes the account (same id): nothing they wrote is lost.
        await convertVisitor(f.email, f.password, details);
        setSuccess('Contul a fost creat! Confirmă adresa din emailul pe care ți l-am trimis; soluția ta te așteaptă în cont.');
        return;
      }
      await signUp(f.email, f.password, details);
      setSuccess('Account created successfully! Check your email to confirm. Redirecting to login...');
      setTimeout(() => nav('/login'), 2000);
    } catch (err) {
      const msg = (err as Error).message;
      // Taken after the check: the server refused the sign-up itself (no account was made).
      if (msg === 'Username is already taken') setStatus('taken');
      setError(msg);
    } finally {
      setBusy(false);
    }
  };
  // A signed-in user has no account to create (not while a sign-up of this page runs).
  if (user && !visitor && !busy && !success) return <Navigate to="/dashboard" replace />;
  return (
    <main className="auth-page">
      <form className="card auth-card" onSubmit={submit} noValidate>
        <Brand />
        <h2>Creează un cont</h2>
        <label>Nume complet<input value={f.name} onChange={set('name')} autoComplete="name" {...mark('name')} /></label>
        <label>
          Nume de utilizator
          <input value={f.username} onChange={set('username')} autoComplete="username" aria-describedby={bad.has('username') ? 'username-status signup-error' : 'username-status'} aria-invalid={bad.has('username') || undefined} />
          <UsernameStatusText status={status} />
        </label>
        <label>
          Universitate
          <UniversitySelect unis={unis} value={f.universityCode} onChange={set('universityCode')} invalid={bad.has('universityCode')} />
        </label>
        {f.universityCode === OTHER_UNIVERSITY && (
          <label>Numele universității<input value={otherName} onChange={(e) => setOtherName(e.target.value)} maxLength={200} autoComplete="organization" /></label>
        )}
        <label>Email<input type="email" value={f.email} onChange={set('email')} autoComplete="email" {...mark('email')} /></label>
        <label>Parolă<input type="password" value={f.password} onChange={set('password')} autoComplete="new-password" {...mark('password')} /></label>
        <label>Confirmă parola<input type="password" value={f.confirmPassword} onChange={set('confirmPassword')} autoComplete="new-password" {...mark('confirmPassword')} /></label>
        {error && <p className="error" role="alert" id="signup-error">{error}</p>}
        {success && <p className="success" role="status">{success}</p>}
        <button className="primary" disabled={busy || !!success}>{busy ? 'Se creează contul...' : 'Creează cont'}</button>
        <p>
          Ai deja cont? <Link to="/login">Conectează-te</Link>
        </p>
      </form>
    </main>
  );
}

export function ForgotPasswordDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v = validateForgot(email);
    setError(v);
    if (v) return;
    setBusy(true);
    const ok = await sendPasswordReset(email);
    setBusy(false);
    if (!ok) {
      setError(GENERIC);
      return;
    }
    setSent(true);
    setTimeout(() => {
      setSent(false);
      setEmail('');
      onClose();
    }, 3000);
  };
  return (
    <Dialog open={open} onClose={onClose} title="Resetare parolă">
      <form onSubmit={submit} noValidate>
        <p>Introdu adresa de email și îți trimitem un link de resetare.</p>
        <label>Email<input type="email" value={email} onChange={(e) => setEmail(e.target.value)} /></label>
        {error && <p className="error" role="alert">{error}</p>}
        {sent && <p className="success" role="status">Email trimis!</p>}
        <div className="row">
          <button type="button" onClick={onClose}>Anulează</button>
          <button className="primary" disabled={busy || sent}>Trimite linkul</button>
        </div>
      </form>
    </Dialog>
  );
}

export function ResetPasswordPage() {
  const nav = useNavigate();
  const session = useAuthStore((s) => s.session);
  const loading = useAuthStore((s) => s.loading);
  const [pw, setPw] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [checked, setChecked] = useState<string | null>(null);
  const bad = invalidFields(checked, { password: pw, confirm });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v = validateReset(pw, confirm);
    setError(v);
    setChecked(v);
    if (v) return;
    if (!(await updatePassword(pw))) {
      setError(GENERIC);
      return;
    }
    setDone(true);
    setTimeout(() => nav('/dashboard'), 2000);
  };
  return (
    <main className="auth-page">
      <form className="card auth-card" onSubmit={submit} noValidate>
        <Brand />
        <h2>Setează o parolă nouă</h2>
        {!loading && !session && !done ? (
          <p className="error" role="alert">Link-ul de resetare este invalid sau a expirat. Te rog solicită un nou link.</p>
        ) : (
          <>
            <label>Parola nouă<input type="password" value={pw} onChange={(e) => setPw(e.target.value)} autoComplete="new-password" aria-invalid={bad.has('password') || undefined} /></label>
            <label>Confirmă parola<input type="password" value={confirm} onChange={(e) => setConfirm(e.target.value)} autoComplete="new-password" aria-invalid={bad.has('confirm') || undefined} /></label>
            {error && <p className="error" role="alert">{error}</p>}
            {done && <p className="success" role="status">Parolă actualizată!</p>}
            <button className="primary" disabled={done}>Salvează parola</button>
          </>
        )}
        <Link to="/login">Înapoi la conectare</Link>
      </form>
    </main>
  );
}
