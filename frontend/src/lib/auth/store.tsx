import { createContext, useContext, useEffect, type ReactNode } from 'react';
import type { Session, User } from '@supabase/supabase-js';
import { create } from 'zustand';
import { supabase } from '../supabase';
import { clearQueries } from '../query';
import { afterFirstPaint } from '../firstPaint';
import type { Database } from '../../types/database';

export type Role = 'user' | 'moderator' | 'admin';
type ProfileRow = Database['public']['Tables']['user_profiles']['Row'];
export type Profile = Pick<ProfileRow, 'id' | 'email' | 'name' | 'username' | 'university_code' | 'university_category' | 'university_name' | 'created_at'> & {
  is_admin: boolean;
  role: Role;
};

type AuthState = {
  user: User | null;
  session: Session | null;
  profile: Profile | null;
  // The profile was read and there is none: an account made before sign-up created its
  // profile in the same step (issue 19), or by the admin API. It completes it on sign-in.
  profileMissing: boolean;
  loading: boolean;
};

// Session state fed by onAuthStateChange (section 4): loading until the initial session
// is known; the profile follows the user.
const INITIAL: AuthState = { user: null, session: null, profile: null, profileMissing: false, loading: true };
export const useAuthStore = create<AuthState>(() => ({ ...INITIAL }));

// Back to the state before any session is known (the unit tests' setup runs it after each test).
export function resetAuthStore(): void {
  useAuthStore.setState({ ...INITIAL }, true);
}

// Narrow selectors: a component re-renders only when the part it reads changes.
export const useUser = () => useAuthStore((s) => s.user);
export const useUserId = () => useAuthStore((s) => s.user?.id ?? null);
export const useProfile = () => useAuthStore((s) => s.profile);
export const useIsVisitor = () => useAuthStore((s) => !!s.user?.is_anonymous);

// The role checks, in one place: an admin is role 'admin' (or the older is_admin flag); a
// moderator's pages are open to admins too.
export const isAdmin = (p: Profile | null | undefined): boolean => p?.role === 'admin' || !!p?.is_admin;
export const isModerator = (p: Profile | null | undefined): boolean => isAdmin(p) || p?.role === 'moderator';
export const useIsAdmin = () => useAuthStore((s) => isAdmin(s.profile));
export const useIsModerator = () => useAuthStore((s) => isModerator(s.profile));

// The signed-in user's access token, read at call time (not a render dependency).
export const accessToken = (): string | undefined => useAuthStore.getState().session?.access_token;

async function readProfile(userId: string): Promise<{ profile: Profile | null; missing: boolean }> {
  const { data, error } = await supabase()
    .from('user_profiles')
    .select('id, email, name, username, is_admin, role, university_code, university_category, university_name, created_at')
    .eq('id', userId)
    .maybeSingle();
  if (error) {
    console.error('profile fetch failed', error);
    return { profile: null, missing: false };
  }
  if (!data) return { profile: null, missing: true };
  const role: Role = data.role === 'admin' || data.role === 'moderator' || data.role === 'user' ? data.role : data.is_admin ? 'admin' : 'user';
  return { profile: { ...data, is_admin: !!data.is_admin, role }, missing: false };
}

// The signed-in user's profile as last read, kept on this device: a reload shows the pages
// (header, dashboard) at once from it while the profile is read again, instead of waiting
// for that request (issue 31: the dashboard's first paint on a phone). Only ever shown to
// the same user id; forgotten on sign-out and when the profile turns out missing.
const PROFILE_KEY = 'casus.profile';

function storedProfile(userId: string): Profile | null {
  try {
    const p = JSON.parse(localStorage.getItem(PROFILE_KEY) ?? 'null') as Profile | null;
    return p && p.id === userId && typeof p.role === 'string' ? p : null;
  } catch {
    return null;
  }
}

function storeProfile(profile: Profile | null) {
  try {
    if (profile) localStorage.setItem(PROFILE_KEY, JSON.stringify(profile));
    else localStorage.removeItem(PROFILE_KEY);
  } catch {
    // storage full or disabled: the profile is read on every load
  }
}

export async function fetchProfile(userId: string): Promise<Profile | null> {
  return (await readProfile(userId)).profile;
}

// Reads the signed-in user's profile again (after completing it).
export async function reloadProfile() {
  const user = useAuthStore.getState().user;
  if (!user) return;
  const { profile, missing } = await readProfile(user.id);
  if (useAuthStore.getState().user?.id !== user.id) return;
  useAuthStore.setState({ profile, profileMissing: missing });
  if (profile || missing) storeProfile(profile);
}

// A visitor who tried a case signed in anonymously, then created an account from it
// (updateUser with an e-mail, confirmed by the mailed link): the same user, now permanent,
// whose profile is made from the details the sign-up form stored in user_metadata.
async function profileOfConvertedUser(user: User): Promise<Profile | null> {
  const d = user.user_metadata as Partial<SignUpDetails> | undefined;
  if (user.is_anonymous || !user.email || !d?.username || !d.name || !d.university_code) return null;
  const { error } = await supabase().rpc('create_user_profile', {
    p_id: user.id,
    p_email: user.email,
    p_name: d.name,
    p_username: d.username,
    p_university_code: d.university_code,
    p_university_category: d.university_category ?? undefined,
    p_university_name: d.university_name ?? undefined,
  });
  // Whether or not this call made it, the profile read back is the one to show: a
  // concurrent call (session read and sign-in event at once) may have made it first.
  if (error) console.error('profile of a converted visitor not created', error);
  return fetchProfile(user.id);
}

function startAuthListener() {
  const sb = supabase();
  // Events can overtake each other's profile fetch (sign-out during a sign-in's fetch);
  // only the latest event may write the profile.
  let latest = 0;
  const apply = async (session: Session | null) => {
    const seq = ++latest;
    const user = session?.user ?? null;
    // What was loaded for another user (lib/query) is not shown to this one.
    if (user?.id !== useAuthStore.getState().user?.id) clearQueries();
    // The profile this device last read for this user, if any: the pages render with it now.
    const stored = user && !user.is_anonymous ? storedProfile(user.id) : null;
    if (stored) useAuthStore.setState({ session, user, profile: stored, profileMissing: false, loading: false });
    else useAuthStore.setState({ session, user });
    if (!user) storeProfile(null);
    // Shown from the stored profile, the page paints before the profile is read again.
    if (stored) await afterFirstPaint();
    let { profile, missing } = user ? await readProfile(user.id) : { profile: null, missing: false };
    if (user && missing) {
      // A converted visitor's profile is made from the details their sign-up stored.
      profile = await profileOfConvertedUser(user);
      missing = !profile;
    }
    if (seq !== latest) return;
    // A failed read keeps the stored profile rather than showing none.
    if (!profile && !missing && stored) profile = stored;
    useAuthStore.setState({ profile, profileMissing: missing, loading: false });
    if (user && (profile || missing)) storeProfile(profile);
  };
  sb.auth.onAuthStateChange((event, session) => {
    if (event === 'INITIAL_SESSION') return;
    // Defer: supabase-js must not be called back into from inside its own callback.
    setTimeout(() => apply(session), 0);
  });
  // Settles once the initial session is in the store (with the stored profile, if any; the
  // profile read itself goes on).
  return sb.auth.getSession().then(({ data }) => {
    void apply(data.session);
  });
}

// Follows the session for the app's lifetime, started once: by main.tsx before the first
// render (so that a returning student's first paint is the page, not a spinner), else by
// the AuthProvider. Settles when the initial session is in the store.
let started: Promise<void> | null = null;
export function startAuth(): Promise<void> {
  started ??= startAuthListener();
  return started;
}

const AuthContext = createContext<boolean>(false);

export function AuthProvider({ children }: { children: ReactNode }) {
  useEffect(() => {
    void startAuth();
  }, []);
  return <AuthContext.Provider value={true}>{children}</AuthContext.Provider>;
}

// What create_user_profile answers when no sign-up of this id exists (sql/app, create_user_profile).
const NO_SIGNUP = 'no matching recent sign-up for this profile';

export type SignUpDetails = { name: string; username: string; university_code: string; university_category: string; university_name: string };

// The auth actions, defined once (stable references, no re-creation per render).
export const authActions = {
  signIn: async (email: string, password: string) => {
    const { error } = await supabase().auth.signInWithPassword({ email: email.trim(), password });
    if (error) throw error;
  },
  signUp: async (email: string, password: string, d: SignUpDetails) => {
    const sb = supabase();
    const { data, error } = await sb.auth.signUp({
      email: email.trim(),
      password,
      options: { data: d, emailRedirectTo: `${window.location.origin}/login` },
    });
    if (error) throw error;
    if (!data.user) throw new Error('User creation failed');
    // An address that already has an account gets GoTrue's obfuscated answer: a user that
    // does not exist, with no identities. The page answers as for a new account, telling
    // nobody that the address is registered (walkthrough 3, bug 6).
    if (data.user.identities?.length === 0) return;
    const { error: pErr } = await sb.rpc('create_user_profile', {
      p_id: data.user.id,
      p_email: email.trim(),
      p_name: d.name.trim(),
      p_username: d.username.trim(),
      p_university_code: d.university_code,
      p_university_category: d.university_category,
      p_university_name: d.university_name,
    });
    // The profile was made with the account (the sign-up's trigger); the call returns it.
    if (pErr && pErr.message === NO_SIGNUP) return;
    if (pErr) throw new Error('Failed to create user profile: ' + pErr.message);
  },
  // "Încearcă o speță": an anonymous session (is_anonymous in the token) that reads one
  // case; RLS and the AI gateway keep every write for accounts.
  tryAsVisitor: async () => {
    const { error } = await supabase().auth.signInAnonymously();
    if (error) throw error;
  },
  // The visitor's account: the same user gets an e-mail and a password; the mailed link
  // confirms it (and then the profile is made from these details, see above).
  convertVisitor: async (email: string, password: string, d: SignUpDetails) => {
    const { error } = await supabase().auth.updateUser(
      { email: email.trim(), password, data: d },
      { emailRedirectTo: `${window.location.origin}/dashboard` },
    );
    if (error) throw error;
  },
  signOut: async () => {
    await supabase().auth.signOut();
  },
};

// The whole session state and the actions, for the route guards; other components use the
// narrow selectors above.
export function useAuth() {
  if (!useContext(AuthContext)) throw new Error('useAuth must be used within an AuthProvider');
  const state = useAuthStore();
  return { ...state, ...authActions };
}
