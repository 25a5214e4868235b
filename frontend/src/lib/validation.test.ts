import { describe, expect, it, test } from 'vitest';
import {
  clampViewer, gradeBand, isCompleted, likeLiteral, shouldSearch, stripCasePrefix,
  invalidFields, validateFeedback, validateForgot, validateLogin, validateReset, validateSignup, type SignupForm,
} from './validation';

describe('login', () => {
  test.each([
    ['', '', 'Please fill in all fields'],
    ['a@b.ro', '', 'Please fill in all fields'],
    ['nu-email', 'secret1', 'Please enter a valid email address'],
    ['a@b.ro', '12345', 'Password must be at least 6 characters'],
    ['a@b.ro', '123456', null],
  ])('%s / %s', (email, pw, want) => expect(validateLogin(email, pw)).toBe(want));
});

describe('sign-up, in the spec order', () => {
  const ok: SignupForm = { name: 'Ana Pop', username: 'ana_pop', universityCode: 'UB', email: 'ana@b.ro', password: 'secret1', confirmPassword: 'secret1' };
  const codes = ['UB', 'UBB'];
  test.each<[Partial<SignupForm>, string | null, string?]>([
    [{}, null],
    [{ name: '' }, 'Please fill in all fields'],
    [{ confirmPassword: '' }, 'Please fill in all fields'],
    [{ name: 'A' }, 'Name must be at least 2 characters'],
    [{ name: 'A', username: 'ab' }, 'Name must be at least 2 characters'],
    [{ username: 'ab' }, 'Username must be at least 3 characters'],
    [{ username: 'ana pop' }, 'Username can only contain letters, numbers, and underscores'],
    [{ username: 'ana-pop', email: 'x' }, 'Username can only contain letters, numbers, and underscores'],
    [{ email: 'x' }, 'Please enter a valid email address'],
    [{ password: '123', confirmPassword: '123' }, 'Password must be at least 6 characters'],
    [{ confirmPassword: 'secret2' }, 'Passwords do not match'],
    [{ universityCode: 'XYZ' }, 'Please select a university'],
  ])('%o', (patch, want) => expect(validateSignup({ ...ok, ...patch }, 'available', codes)).toBe(want));
  test('a known-taken username', () => expect(validateSignup(ok, 'taken', codes)).toBe('Username is already taken'));
  test('taken is checked after the charset and before the e-mail', () =>
    expect(validateSignup({ ...ok, email: 'x' }, 'taken', codes)).toBe('Username is already taken'));
});

test('forgot password', () => {
  expect(validateForgot(' ')).toBe('Te rog introdu adresa de email');
  expect(validateForgot('x@')).toBe('Te rog introdu o adresă de email validă');
  expect(validateForgot('a@b.ro')).toBeNull();
});

test('reset password', () => {
  expect(validateReset('', 'x')).toBe('Te rog completează ambele câmpuri');
  expect(validateReset('12345', '12345')).toBe('Parola trebuie să aibă cel puțin 6 caractere');
  expect(validateReset('123456', '1234567')).toBe('Parolele nu se potrivesc');
  expect(validateReset('123456', '123456')).toBeNull();
});

test('feedback', () => {
  expect(validateFeedback('   ', '')).toBe('Feedback-ul nu poate fi gol');
  expect(validateFeedback('Bun', 'nu-email')).toBe('Te rog introdu o adresă de email validă');
  expect(validateFeedback('Bun', '')).toBeNull();
  expect(validateFeedback('Bun', 'a@b.ro')).toBeNull();
});

test('search threshold, bands, completion, divider, titles', () => {
  expect(shouldSearch(' a ')).toBe(false);
  expect(shouldSearch('ab')).toBe(true);
  expect([95, 85, 75, 65, 59].map(gradeBand)).toEqual(['Excelent', 'Foarte bine', 'Bine', 'Satisfăcător', 'Nesatisfăcător']);
  expect(gradeBand(90)).toBe('Excelent');
  expect(gradeBand(60)).toBe('Satisfăcător');
  expect(isCompleted(50)).toBe(false);
  expect(isCompleted(50.5)).toBe(true);
  expect(clampViewer(100, 1000)).toBe(150);
  expect(clampViewer(900, 1000)).toBe(800);
  expect(clampViewer(400, 1000)).toBe(400);
  // The room the panel leaves above the chat's minimum bounds it too, never under 150.
  expect(clampViewer(900, 1000, 500)).toBe(500);
  expect(clampViewer(400, 1000, 500)).toBe(400);
  expect(clampViewer(900, 1000, 100)).toBe(150);
  expect(stripCasePrefix('Caz 12: Furtul calificat')).toBe('Furtul calificat');
});

test('the username fallback lookup matches underscores and percent signs literally', () => {
  expect(likeLiteral('ana_pop')).toBe('ana\\_pop');
  expect(likeLiteral('a%b\\c')).toBe('a\\%b\\\\c');
  expect(likeLiteral('ana')).toBe('ana');
});

describe('invalidFields', () => {
  const empty = { name: '', username: 'ana', universityCode: '', email: 'a@b.ro', password: '', confirmPassword: '' };
  it('marks the empty fields when all must be filled', () => {
    expect([...invalidFields('Please fill in all fields', empty)].sort()).toEqual(['confirmPassword', 'name', 'password', 'universityCode']);
  });
  it('marks the one field a message is about', () => {
    expect([...invalidFields('Please enter a valid email address', { email: 'x', password: 'p' })]).toEqual(['email']);
    expect([...invalidFields('Passwords do not match', empty)]).toEqual(['confirmPassword']);
    expect([...invalidFields('Parolele nu se potrivesc', { password: 'a', confirm: 'b' })]).toEqual(['confirm']);
    expect([...invalidFields('Username is already taken', empty)]).toEqual(['username']);
    expect([...invalidFields('Password must be at least 6 characters', { email: 'a', password: 'b' })]).toEqual(['password']);
    expect(invalidFields(null, empty).size).toBe(0);
  });
});
