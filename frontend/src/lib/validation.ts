import { SCORE_BANDS } from '../types/rules';

// The spec's validation rules (section 5), in its order and with its messages.

export const MIN_PASSWORD = 6;
export const MIN_NAME = 2;
export const MIN_USERNAME = 3;
// The database's bound (user_profiles.username check: ^[A-Za-z0-9_]{3,50}$).
export const MAX_USERNAME = 50;
export const TOO_LONG_USERNAME = `Numele de utilizator poate avea cel mult ${MAX_USERNAME} de caractere`;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const USERNAME_RE = /^[A-Za-z0-9_]+$/;

export const isEmail = (s: string) => EMAIL_RE.test(s.trim());

export function validateLogin(email: string, password: string): string | null {
  if (!email.trim() || !password) return 'Please fill in all fields';
  if (!isEmail(email)) return 'Please enter a valid email address';
  if (password.length < MIN_PASSWORD) return 'Password must be at least 6 characters';
  return null;
}

export type SignupForm = {
  name: string;
  username: string;
  universityCode: string;
  email: string;
  password: string;
  confirmPassword: string;
};

// The username fallback lookup is an ilike: '_' (allowed in usernames) and '%' are
// wildcards there, so they are escaped to match only themselves.
export const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => '\\' + c);

// 'invalid': the name breaks the charset or length rule, so whether it is free is not asked.
export type UsernameStatus = 'unknown' | 'checking' | 'available' | 'taken' | 'invalid';

// Whether a name of at least MIN_USERNAME characters may be a username at all.
export const usernameWellFormed = (u: string) => USERNAME_RE.test(u) && u.length <= MAX_USERNAME;

export function validateSignup(f: SignupForm, usernameStatus: UsernameStatus, knownCodes: string[]): string | null {
  if (!f.name.trim() || !f.username.trim() || !f.universityCode || !f.email.trim() || !f.password || !f.confirmPassword) {
    return 'Please fill in all fields';
  }
  if (f.name.trim().length < MIN_NAME) return 'Name must be at least 2 characters';
  if (f.username.trim().length < MIN_USERNAME) return 'Username must be at least 3 characters';
  if (!USERNAME_RE.test(f.username.trim())) return 'Username can only contain letters, numbers, and underscores';
  if (f.username.trim().length > MAX_USERNAME) return TOO_LONG_USERNAME;
  if (usernameStatus === 'taken') return 'Username is already taken';
  if (!isEmail(f.email)) return 'Please enter a valid email address';
  if (f.password.length < MIN_PASSWORD) return 'Password must be at least 6 characters';
  if (f.password !== f.confirmPassword) return 'Passwords do not match';
  if (!knownCodes.includes(f.universityCode)) return 'Please select a university';
  return null;
}

// Completing a profile (an account without one, issue 19): the sign-up's profile rules in
// the sign-up's order and words.
export function validateProfile(f: { name: string; username: string; universityCode: string }, usernameStatus: UsernameStatus, knownCodes: string[]): string | null {
  if (!f.name.trim() || !f.username.trim() || !f.universityCode) return 'Please fill in all fields';
  if (f.name.trim().length < MIN_NAME) return 'Name must be at least 2 characters';
  if (f.username.trim().length < MIN_USERNAME) return 'Username must be at least 3 characters';
  if (!USERNAME_RE.test(f.username.trim())) return 'Username can only contain letters, numbers, and underscores';
  if (f.username.trim().length > MAX_USERNAME) return TOO_LONG_USERNAME;
  if (usernameStatus === 'taken') return 'Username is already taken';
  if (!knownCodes.includes(f.universityCode)) return 'Please select a university';
  return null;
}

export function validateForgot(email: string): string | null {
  if (!email.trim()) return 'Te rog introdu adresa de email';
  if (!isEmail(email)) return 'Te rog introdu o adresă de email validă';
  return null;
}

export function validateReset(password: string, confirm: string): string | null {
  if (!password || !confirm) return 'Te rog completează ambele câmpuri';
  if (password.length < MIN_PASSWORD) return 'Parola trebuie să aibă cel puțin 6 caractere';
  if (password !== confirm) return 'Parolele nu se potrivesc';
  return null;
}

export function validateFeedback(body: string, email: string): string | null {
  if (!body.trim()) return 'Feedback-ul nu poate fi gol';
  if (email.trim() && !isEmail(email)) return 'Te rog introdu o adresă de email validă';
  return null;
}

// Search runs only from 2 characters (trimmed).
export const SEARCH_MIN = 2;
export const SEARCH_DEBOUNCE_MS = 300;
export const shouldSearch = (q: string) => q.trim().length >= SEARCH_MIN;

// Grade bands (section 9), as the server writes them in the grade (types/rules.ts).
export function gradeBand(score: number): string {
  return (SCORE_BANDS.find((b) => score >= b.min) ?? SCORE_BANDS[SCORE_BANDS.length - 1]).name;
}

export const isCompleted = (scoreValue: number | null | undefined) => (scoreValue ?? 0) > 50;

// Code viewer divider: 150 px to 80 % of the window, default 400.
export const VIEWER_MIN = 150;
export const VIEWER_DEFAULT = 400;
// The chat under the code viewer keeps at least this height (issue 19, bug 2): the
// divider's maximum is the smaller of 80 % of the window and what the panel leaves above it.
export const CHAT_MIN = 300;
export function clampViewer(h: number, windowHeight: number, room = Infinity): number {
  return Math.round(Math.max(VIEWER_MIN, Math.min(h, windowHeight * 0.8, room)));
}

// "Caz 3: Titlu" → "Titlu" for the sidebar.
export const stripCasePrefix = (title: string) => title.replace(/^Caz\s+\d+\s*:\s*/i, '');

// The fields a validation message is about, so the form can mark them (aria-invalid and a
// red border): "fill in all fields" marks the empty ones; any other message its own field.
export function invalidFields<K extends string>(message: string | null, values: Partial<Record<K, string>>): Set<K> {
  const out = new Set<K>();
  if (!message) return out;
  const has = (k: string) => k in values;
  const add = (k: string) => has(k) && out.add(k as K);
  if (/fill in all fields|completează ambele/i.test(message)) {
    for (const [k, v] of Object.entries(values)) if (!String(v ?? '').trim()) out.add(k as K);
    return out;
  }
  if (/^Name/.test(message)) add('name');
  else if (/^Username/.test(message)) add('username');
  else if (/email/i.test(message)) add('email');
  else if (/do not match|nu se potrivesc/i.test(message)) add(has('confirmPassword') ? 'confirmPassword' : 'confirm');
  else if (/password|parola/i.test(message)) add('password');
  else if (/university/i.test(message)) add('universityCode');
  return out;
}
