import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { Profile } from './store';

// The profile kept on this device (issue 31): a reload renders from it while it is read again.
type Listener = (event: string, session: unknown) => void;
const fake = {
  session: null as { user: { id: string; is_anonymous: boolean } } | null,
  rows: new Map<string, Promise<{ data: unknown; error: unknown }>>(),
  listener: null as Listener | null,
};
vi.mock('../supabase', () => ({
  supabase: () => ({
    auth: {
      getSession: async () => ({ data: { session: fake.session } }),
      onAuthStateChange: (cb: Listener) => {
        fake.listener = cb;
        return { data: { subscription: { unsubscribe: () => {} } } };
      },
    },
    from: () => ({
      select: () => ({
        eq: (_: string, id: string) => ({ maybeSingle: () => fake.rows.get(id) ?? Promise.resolve({ data: null, error: null }) }),
      }),
    }),
  }),
}));

const row = (id: string, name: string) => ({ id, email: `${id}@b.ro`, name, username: id, is_admin: false, role: 'user', university_code: null, university_category: null, university_name: null, created_at: '2026-01-01' });
const stored = () => JSON.parse(localStorage.getItem('casus.profile') ?? 'null') as Profile | null;

function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

beforeEach(() => {
  // startAuth runs once per module instance: each test starts the store afresh.
  vi.resetModules();
  localStorage.clear();
  fake.rows.clear();
  fake.listener = null;
});
afterEach(() => localStorage.clear());

describe('stored profile', () => {
  test('a reload shows the stored profile as soon as the session is known, then the one read again', async () => {
    const { startAuth, useAuthStore } = await import('./store');
    localStorage.setItem('casus.profile', JSON.stringify({ ...row('u1', 'Vechi'), is_admin: false, role: 'user' }));
    fake.session = { user: { id: 'u1', is_anonymous: false } };
    const read = deferred<{ data: unknown; error: unknown }>();
    fake.rows.set('u1', read.promise);
    await startAuth();
    expect(useAuthStore.getState()).toMatchObject({ loading: false, profileMissing: false, profile: { name: 'Vechi' } });
    read.resolve({ data: row('u1', 'Nou'), error: null });
    await vi.waitFor(() => expect(useAuthStore.getState().profile?.name).toBe('Nou'));
    expect(stored()?.name).toBe('Nou');
  });

  test("another user's stored profile is never shown; the read one is stored; sign-out forgets it", async () => {
    const { startAuth, useAuthStore } = await import('./store');
    localStorage.setItem('casus.profile', JSON.stringify(row('u1', 'Altcineva')));
    fake.session = { user: { id: 'u2', is_anonymous: false } };
    const read = deferred<{ data: unknown; error: unknown }>();
    fake.rows.set('u2', read.promise);
    await startAuth();
    expect(useAuthStore.getState()).toMatchObject({ loading: true, profile: null });
    read.resolve({ data: row('u2', 'Ea'), error: null });
    await vi.waitFor(() => expect(useAuthStore.getState()).toMatchObject({ loading: false, profile: { name: 'Ea' } }));
    expect(stored()).toMatchObject({ id: 'u2', name: 'Ea', role: 'user' });
    fake.listener!('SIGNED_OUT', null);
    await vi.waitFor(() => expect(useAuthStore.getState().user).toBeNull());
    expect(stored()).toBeNull();
  });

  test('a failed read keeps the stored profile; a missing one is forgotten', async () => {
    const { startAuth, useAuthStore } = await import('./store');
    vi.spyOn(console, 'error').mockImplementation(() => {});
    localStorage.setItem('casus.profile', JSON.stringify(row('u1', 'Vechi')));
    fake.session = { user: { id: 'u1', is_anonymous: false } };
    fake.rows.set('u1', Promise.resolve({ data: null, error: { message: 'down' } }));
    await startAuth();
    await vi.waitFor(() => expect(console.error).toHaveBeenCalled());
    expect(useAuthStore.getState()).toMatchObject({ loading: false, profileMissing: false, profile: { name: 'Vechi' } });
    expect(stored()?.name).toBe('Vechi');
    fake.rows.set('u1', Promise.resolve({ data: null, error: null }));
    fake.listener!('TOKEN_REFRESHED', fake.session);
    await vi.waitFor(() => expect(useAuthStore.getState().profileMissing).toBe(true));
    expect(useAuthStore.getState().profile).toBeNull();
    expect(stored()).toBeNull();
  });
});
