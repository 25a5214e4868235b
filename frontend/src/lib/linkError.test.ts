import { expect, test } from 'vitest';
import { LINK_EXPIRED, LINK_FAILED, linkErrorMessage } from './linkError';

test('a refused mail link is named by its error code', () => {
  expect(linkErrorMessage('#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired')).toBe(LINK_EXPIRED);
  expect(linkErrorMessage('#error=server_error&error_description=x')).toBe(LINK_FAILED);
  expect(linkErrorMessage('#access_token=abc')).toBeNull();
  expect(linkErrorMessage('')).toBeNull();
});
