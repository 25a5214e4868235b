import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Browser } from 'playwright-core';
import { createClient } from '@supabase/supabase-js';
import { base, launch, login, makeStudent, step } from './support';
import { enrolAuthenticator } from './mfa-support';
import { totpCode, wrongTotpCode } from '../tests/support/totp';

// Two-step authentication in the browser (issue 18): an admin (MFA_REQUIRED_ROLES' default)
// is asked to enrol an authenticator app on the next visit to /admin, and from then on must
// enter a code to open it; below aal2 the database shows them only their own data.
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

test('an admin enrols an authenticator app and must enter a code to open /admin', async () => {
  const adm = await makeStudent('admin');
  const other = await makeStudent();
  const ctx = await browser.newContext();
  const page = await login(ctx, adm.email, adm.password);
  let secret = '';
  await step(page, 'mfa-enrol', async () => {
    await page.goto(base + '/admin');
    // The QR code is a real image (supabase-js's data: URI of the server's SVG).
    const qr = page.getByAltText('Cod QR pentru aplicația de autentificare');
    await qr.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img.mfa-qr');
      return !!img && img.complete && img.naturalWidth > 0;
    });
    await page.screenshot({ path: 'e2e/screenshots/mfa-enrol.png' }).catch(() => {});
    secret = await enrolAuthenticator(page);
    await page.getByText(other.email).waitFor();
  });
  await ctx.close();

  // Below aal2 the database itself refuses the admin data: a password-only session of the
  // enrolled admin reads only its own profile.
  const sb = createClient(base, process.env.ANON_KEY!, { auth: { persistSession: false, autoRefreshToken: false } });
  await sb.auth.signInWithPassword({ email: adm.email, password: adm.password });
  const { data: rows } = await sb.from('user_profiles').select('id');
  expect(rows?.map((r) => r.id)).toEqual([adm.id]);
  const roleChange = await sb.rpc('update_user_role', { p_user_id: other.id, p_new_role: 'moderator' });
  expect(roleChange.error).not.toBeNull();

  // A new sign-in: /admin asks for the code; a wrong one is refused, the right one opens it.
  const ctx2 = await browser.newContext();
  const p2 = await login(ctx2, adm.email, adm.password);
  await step(p2, 'mfa-challenge', async () => {
    await p2.goto(base + '/admin');
    await p2.getByRole('heading', { name: 'Confirmă autentificarea' }).waitFor();
    expect(await p2.getByText(other.email).count()).toBe(0);
    await p2.getByLabel('Cod din aplicație').fill(wrongTotpCode(secret));
    await p2.getByRole('button', { name: 'Verifică' }).click();
    await p2.getByText('Cod incorect. Verifică aplicația de autentificare și încearcă din nou.').waitFor();
    await p2.getByLabel('Cod din aplicație').fill(totpCode(secret));
    await p2.getByRole('button', { name: 'Verifică' }).click();
    await p2.getByText(other.email).waitFor();
    // Still aal2 after a reload (the session persisted by supabase-js carries it).
    await p2.reload();
    await p2.getByText(other.email).waitFor();
  });
  await ctx2.close();
});

test('any user adds an authenticator app in Settings and removes it', async () => {
  const s = await makeStudent();
  const ctx = await browser.newContext();
  const page = await login(ctx, s.email, s.password);
  await step(page, 'mfa-settings', async () => {
    await page.goto(base + '/settings');
    await page.getByText('Dezactivată. La conectare ți se cere doar parola.').waitFor();
    await page.getByRole('button', { name: 'Configurează aplicația de autentificare' }).click();
    const secret = (await page.getByTestId('mfa-secret').textContent())!.trim();
    await page.getByLabel('Cod din aplicație').fill(wrongTotpCode(secret));
    await page.getByRole('button', { name: 'Activează' }).click();
    await page.getByText('Cod incorect. Verifică aplicația de autentificare și încearcă din nou.').waitFor();
    await page.getByLabel('Cod din aplicație').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Activează' }).click();
    await page.getByText('Autentificarea în doi pași a fost activată.').waitFor();
    await page.getByText(/^Activată: aplicație de autentificare/).waitFor();
    await page.screenshot({ path: 'e2e/screenshots/mfa-settings.png' }).catch(() => {});
    // Signed in with the code in this session (aal2): removal needs no second code.
    await page.getByRole('button', { name: 'Elimină aplicația de autentificare' }).click();
    await page.getByText('Aplicația de autentificare a fost eliminată.').waitFor();
    await page.getByText('Dezactivată. La conectare ți se cere doar parola.').waitFor();
  });
  await ctx.close();
});
