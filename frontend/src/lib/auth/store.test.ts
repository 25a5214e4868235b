import { act, renderHook } from '@testing-library/react';
import { describe, expect, test } from 'vitest';
import { authActions, isAdmin, isModerator, useAuthStore, useIsAdmin, useIsModerator, type Profile } from './store';

const profile = (role: Profile['role'], is_admin = false): Profile => ({
  id: 'u1', email: 'a@b.ro', name: 'A', username: 'a', university_code: null, university_category: null, university_name: null, created_at: '2026-01-01', role, is_admin,
});

describe('auth store', () => {
  test('one role check: admins by role or the older flag, moderator pages open to admins', () => {
    expect([isAdmin(profile('admin')), isAdmin(profile('user', true)), isAdmin(profile('moderator')), isAdmin(null)]).toEqual([true, true, false, false]);
    expect([isModerator(profile('moderator')), isModerator(profile('admin')), isModerator(profile('user')), isModerator(undefined)]).toEqual([true, true, false, false]);
  });

  test('the role selectors follow the profile', () => {
    const admin = renderHook(() => useIsAdmin());
    const mod = renderHook(() => useIsModerator());
    expect([admin.result.current, mod.result.current]).toEqual([false, false]);
    act(() => useAuthStore.setState({ profile: profile('moderator') }));
    expect([admin.result.current, mod.result.current]).toEqual([false, true]);
    act(() => useAuthStore.setState({ profile: profile('admin') }));
    expect([admin.result.current, mod.result.current]).toEqual([true, true]);
    admin.unmount();
    mod.unmount();
  });

  test('a test starts from the initial state (the setup resets the store after each test)', () => {
    // The previous test left an admin profile behind.
    expect(useAuthStore.getState()).toEqual({ user: null, session: null, profile: null, profileMissing: false, loading: true });
  });

  test('the actions are defined once: the same functions on every read', () => {
    expect(Object.keys(authActions).sort()).toEqual(['convertVisitor', 'signIn', 'signOut', 'signUp', 'tryAsVisitor']);
    expect(useAuthStore.getState()).not.toHaveProperty('signIn');
  });
});
