import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { BrowserRouter, Link, Navigate, Route, Routes, useLocation, useNavigate } from 'react-router-dom';
import { authActions, AuthProvider, useAuth, useAuthStore, useIsAdmin, useIsModerator, useProfile } from '../lib/auth/store';
import { Toaster } from '../components/ui/toast';
import { FeedbackButton } from '../components/feedback/FeedbackButton';
import { CloseIcon, MenuIcon, ScaleIcon } from '../components/ui/icons';
import { NotificationBell } from './NotificationBell';
// Reads a refused mail link's error before any redirect drops the fragment.
import '../lib/linkError';

// For main.tsx, which starts following the session before the first render.
export { startAuth } from '../lib/auth/store';

// Opening /dashboard directly, its chunk loads with this one, and for a signed-in student
// main.tsx renders once it is there (routeReady), so the page renders at once (a lazy
// component would suspend and React holds a revealed boundary back for up to 300 ms). A
// visitor sent on to /login or /try does not wait for it.
let dashboardModule: typeof import('./routes/Dashboard') | null = null;
const loadDashboard = () => import('./routes/Dashboard').then((m) => (dashboardModule = m));
const dashboardAhead = window.location.pathname === '/dashboard' ? loadDashboard().catch(() => undefined) : null;
export function routeReady(): Promise<unknown> {
  const user = useAuthStore.getState().user;
  return dashboardAhead && user && !user.is_anonymous ? dashboardAhead : Promise.resolve();
}
const LazyDashboard = lazy(loadDashboard);
function Dashboard() {
  return dashboardModule ? <dashboardModule.default /> : <LazyDashboard />;
}
// The account pages are their own chunk: a signed-in student opening /dashboard never needs them.
const LoginPage = lazy(() => import('../features/auth/components/pages').then((m) => ({ default: m.LoginPage })));
const SignupPage = lazy(() => import('../features/auth/components/pages').then((m) => ({ default: m.SignupPage })));
const ResetPasswordPage = lazy(() => import('../features/auth/components/pages').then((m) => ({ default: m.ResetPasswordPage })));
const CompleteProfilePage = lazy(() => import('../features/auth/components/CompleteProfile').then((m) => ({ default: m.CompleteProfilePage })));
// Only admins and moderators pass the second-factor gate: it loads with their pages.
const MfaGate = lazy(() => import('../features/mfa/components/MfaGate').then((m) => ({ default: m.MfaGate })));
const Admin = lazy(() => import('../features/admin/components/Admin'));
const Settings = lazy(() => import('./routes/Settings'));
const Reporting = lazy(() => import('./routes/Reporting'));
const Generator = lazy(() => import('../features/generator/components/Generator'));
const Review = lazy(() => import('../features/review/components/Review'));
const Grile = lazy(() => import('../features/grile/components/GrilePage'));
const Leaderboard = lazy(() => import('../features/leaderboard/components/LeaderboardPage'));
const Trial = lazy(() => import('../features/dashboard/components/Trial'));
const JoinPage = lazy(() => import('../features/seminars/components/JoinPage'));
const SeminarsHome = lazy(() => import('../features/seminars/components/SeminarsHome'));
const GroupPage = lazy(() => import('../features/seminars/components/GroupPage'));
const NotificationsPage = lazy(() => import('../features/seminars/components/NotificationsPage'));

function Loading() {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden /> Se încarcă...
    </div>
  );
}

// Protected routes wait for the session, then send visitors to /login.
function Protected({ children }: { children: ReactNode }) {
  const { user, loading, profileMissing } = useAuth();
  const location = useLocation();
  if (loading) return <Loading />;
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  // A visitor trying a case (anonymous session) has no account pages.
  if (user.is_anonymous) return <Navigate to="/try" replace />;
  // An account without a profile completes it first (issue 19, bug 1).
  if (profileMissing && !user.is_anonymous) return <Suspense fallback={<Loading />}><CompleteProfilePage /></Suspense>;
  return (
    <>
      <Header />
      <Suspense fallback={<Loading />}>{children}</Suspense>
    </>
  );
}

export function Header() {
  const profile = useProfile();
  const { signOut } = authActions;
  const nav = useNavigate();
  const isAdmin = useIsAdmin();
  const isModerator = useIsModerator();
  // On a phone the links fold into a menu behind one button; it closes on navigation and Escape.
  const [menu, setMenu] = useState(false);
  const { pathname } = useLocation();
  const [menuPath, setMenuPath] = useState(pathname);
  if (menuPath !== pathname) {
    setMenuPath(pathname);
    setMenu(false);
  }
  return (
    <header
      className="app-header"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && menu && !(e.target as HTMLElement).closest('details[open]')) {
          setMenu(false);
          (e.currentTarget.querySelector('.nav-toggle') as HTMLButtonElement | null)?.focus();
        }
      }}
    >
      <Link to="/dashboard" className="brand-link">
        <span className="logo"><ScaleIcon /></span> Casus <span className="badge">beta</span> <span className="badge">v0.1</span>
      </Link>
      <button type="button" className="nav-toggle" aria-expanded={menu} aria-controls="app-nav" onClick={() => setMenu(!menu)}>
        {menu ? <CloseIcon /> : <MenuIcon />} Meniu
      </button>
      <nav id="app-nav" className={menu ? 'app-nav open' : 'app-nav'} aria-label="Navigare principală">
        <Link to="/case-generator" className="button">Generează caz</Link>
        <Link to="/grile">Grile</Link>
        <Link to="/reporting">Progress</Link>
        <Link to="/clasament">Clasament</Link>
        <Link to="/seminar">Seminar</Link>
        {isModerator && <Link to="/review">Verificare cazuri</Link>}
        {isAdmin && <Link to="/admin">Admin</Link>}
        <FeedbackButton label="Feedback" />
        <NotificationBell />
        <AccountMenu name={profile?.name ?? null} isAdmin={isAdmin} onSignOut={async () => {
          await signOut();
          nav('/login');
        }} />
      </nav>
    </header>
  );
}

// The account menu: a disclosure whose accessible name is its visible name (the user's),
// a skeleton until the profile is there; it closes on Escape (focus back on its button), on
// a click outside and when the route changes.
function AccountMenu({ name, isAdmin, onSignOut }: { name: string | null; isAdmin: boolean; onSignOut: () => void }) {
  const ref = useRef<HTMLDetailsElement>(null);
  const { pathname } = useLocation();
  useEffect(() => {
    if (ref.current) ref.current.open = false;
  }, [pathname]);
  useEffect(() => {
    const outside = (e: PointerEvent) => {
      const d = ref.current;
      if (d?.open && !d.contains(e.target as Node)) d.open = false;
    };
    document.addEventListener('pointerdown', outside);
    return () => document.removeEventListener('pointerdown', outside);
  }, []);
  return (
    <details
      className="account-menu"
      ref={ref}
      onKeyDown={(e) => {
        if (e.key !== 'Escape' || !ref.current?.open) return;
        ref.current.open = false;
        ref.current.querySelector('summary')?.focus();
      }}
    >
      <summary>{name ?? <span className="skeleton name" role="status" aria-label="Se încarcă contul" />}</summary>
      <div className="menu">
        <Link to="/settings">Setări</Link>
        <Link to="/reporting">Progress</Link>
        {isAdmin && <Link to="/admin">Admin Panel</Link>}
        <button type="button" onClick={onSignOut}>
          Sign Out
        </button>
      </div>
    </details>
  );
}

// The visitor's page ("Încearcă o speță"): an anonymous session only; with an account
// the case is on the dashboard.
function VisitorRoute() {
  const { user, loading } = useAuth();
  if (loading) return <Loading />;
  if (!user) return <Navigate to="/login" replace />;
  if (!user.is_anonymous) return <Navigate to="/dashboard" replace />;
  return (
    <Suspense fallback={<Loading />}>
      <Trial />
    </Suspense>
  );
}

// Each route's own document title, so tabs and history tell pages apart.
const TITLES: Record<string, string> = {
  '/login': 'Autentificare',
  '/signup': 'Creează cont',
  '/try': 'Încearcă o speță',
  '/reset-password': 'Resetează parola',
  '/dashboard': 'Spețe',
  '/admin': 'Administrare',
  '/reporting': 'Progresul meu',
  '/case-generator': 'Generează caz',
  '/review': 'Verificare cazuri',
  '/settings': 'Setări',
  '/grile': 'Grile',
  '/clasament': 'Clasament',
  '/seminar': 'Seminar',
  '/notificari': 'Notificări',
};
// Routes with a parameter: titled by their first segment.
const PREFIX_TITLES: Record<string, string> = { join: 'Intră în grupă', seminar: 'Grupa de seminar' };

function RouteTitle() {
  const { pathname } = useLocation();
  useEffect(() => {
    const title = TITLES[pathname] ?? PREFIX_TITLES[pathname.split('/')[1]];
    document.title = title ? `${title} · Casus` : 'Casus';
  }, [pathname]);
  return null;
}

export function App() {
  return (
    <AuthProvider>
      <BrowserRouter>
        <RouteTitle />
        <Routes>
          <Route path="/" element={<Navigate to="/login" replace />} />
          <Route path="/login" element={<Suspense fallback={<Loading />}><LoginPage /></Suspense>} />
          <Route path="/signup" element={<Suspense fallback={<Loading />}><SignupPage /></Suspense>} />
          <Route path="/reset-password" element={<Suspense fallback={<Loading />}><ResetPasswordPage /></Suspense>} />
          <Route path="/try" element={<VisitorRoute />} />
          <Route path="/dashboard" element={<Protected><Dashboard /></Protected>} />
          <Route path="/admin" element={<Protected><MfaGate><Admin /></MfaGate></Protected>} />
          <Route path="/reporting" element={<Protected><Reporting /></Protected>} />
          <Route path="/case-generator" element={<Protected><Generator /></Protected>} />
          <Route path="/review" element={<Protected><MfaGate><Review /></MfaGate></Protected>} />
          <Route path="/settings" element={<Protected><Settings /></Protected>} />
          <Route path="/grile" element={<Protected><Grile /></Protected>} />
          <Route path="/clasament" element={<Protected><Leaderboard /></Protected>} />
          <Route path="/join/:code" element={<Protected><JoinPage /></Protected>} />
          <Route path="/seminar" element={<Protected><SeminarsHome /></Protected>} />
          <Route path="/seminar/:group" element={<Protected><GroupPage /></Protected>} />
          <Route path="/notificari" element={<Protected><NotificationsPage /></Protected>} />
          <Route path="*" element={<Navigate to="/login" replace />} />
        </Routes>
      </BrowserRouter>
      <Toaster />
    </AuthProvider>
  );
}
