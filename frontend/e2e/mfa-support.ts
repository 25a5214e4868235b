import type { Page } from 'playwright-core';
import { totpCode } from '../tests/support/totp';

// An admin's first visit to /admin asks for an authenticator app (MFA_REQUIRED_ROLES):
// enrol one with a code computed from the key shown on the page, and return the key.
export async function enrolAuthenticator(page: Page): Promise<string> {
  await page.getByRole('heading', { name: 'Autentificare în doi pași obligatorie' }).waitFor();
  const secret = (await page.getByTestId('mfa-secret').textContent())!.trim();
  await page.getByLabel('Cod din aplicație').fill(totpCode(secret));
  await page.getByRole('button', { name: 'Activează' }).click();
  return secret;
}
