import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, base, launch, login, mailLink, makeStudent, step, unique } from './support';
import { enrolAuthenticator } from './mfa-support';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

test('sign-up: taken username, free one, confirmation mail, then dashboard', async () => {
  const taken = await makeStudent();
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await step(page, 'signup', async () => {
    await page.goto(base + '/signup');
    await page.screenshot({ path: 'e2e/screenshots/signup.png' });
    await page.getByLabel('Nume complet').fill('Ioana Marin');
    await page.getByLabel('Nume de utilizator').fill(taken.username);
    await page.getByText('Indisponibil').waitFor();
    const free = unique('ioana_');
    await page.getByLabel('Nume de utilizator').fill(free);
    await page.getByText('Disponibil', { exact: true }).waitFor();
    await page.getByLabel('Universitate').selectOption('UBB');
    const email = `${free}@example.ro`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Parolă', { exact: true }).fill('parola1');
    await page.getByLabel('Confirmă parola').fill('parola2');
    await page.getByRole('button', { name: 'Creează cont' }).click();
    await page.getByText('Passwords do not match').waitFor();
    await page.getByLabel('Confirmă parola').fill('parola1');
    await page.getByRole('button', { name: 'Creează cont' }).click();
    await page.getByText('Account created successfully! Check your email to confirm. Redirecting to login...').waitFor();
    await page.waitForURL('**/login');
    // Following the mailed link signs the browser in.
    await page.goto(await mailLink(email));
    await page.waitForURL('**/dashboard');
    await page.getByText('Selectează un caz').waitFor();
    await page.goto(base + '/settings');
    await page.getByText(free).first().waitFor();
    expect(await page.getByText('Universitatea „Babeș-Bolyai” din Cluj-Napoca').count()).toBeGreaterThan(0);
  });
  await ctx.close();
});

test('login: wrong then right password; protected route redirect; sign-out', async () => {
  const s = await makeStudent();
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await step(page, 'login', async () => {
    await page.goto(base + '/dashboard');
    await page.waitForURL('**/login');
    await page.screenshot({ path: 'e2e/screenshots/login.png' });
    await page.getByLabel('Email').fill(s.email);
    await page.getByLabel('Parolă').fill('gresita');
    await page.getByRole('button', { name: 'Conectare' }).click();
    await page.getByText('Invalid login credentials').waitFor();
    await page.getByLabel('Parolă').fill(s.password);
    await page.getByRole('button', { name: 'Conectare' }).click();
    await page.waitForURL('**/dashboard');
    await page.locator('summary').click();
    await page.getByRole('button', { name: 'Sign Out' }).click();
    await page.waitForURL('**/login');
    await page.goto(base + '/reporting');
    await page.waitForURL('**/login');
  });
  await ctx.close();
});

test('forgot password: mail link, new password, dashboard', async () => {
  const s = await makeStudent();
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await step(page, 'reset', async () => {
    await page.goto(base + '/reset-password');
    await page.getByText('Link-ul de resetare este invalid sau a expirat. Te rog solicită un nou link.').waitFor();
    await page.goto(base + '/login');
    await page.getByRole('button', { name: 'Ai uitat parola?' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Trimite linkul' }).click();
    await dialog.getByText('Te rog introdu adresa de email').waitFor();
    await dialog.getByLabel('Email').fill(s.email);
    await dialog.getByRole('button', { name: 'Trimite linkul' }).click();
    await dialog.getByText('Email trimis!').waitFor();
    await page.goto(await mailLink(s.email));
    await page.waitForURL('**/reset-password**');
    await page.getByLabel('Parola nouă').fill('noua-parola');
    await page.getByLabel('Confirmă parola').fill('noua-parola');
    await page.getByRole('button', { name: 'Salvează parola' }).click();
    await page.getByText('Parolă actualizată!').waitFor();
    await page.waitForURL('**/dashboard');
  });
  await ctx.close();
  const ctx2 = await browser.newContext();
  await login(ctx2, s.email, 'noua-parola');
  await ctx2.close();
});

test('feedback as an anonymous visitor and as a user', async () => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await step(page, 'feedback', async () => {
    await page.goto(base + '/login');
    await page.getByRole('button', { name: 'Trimite feedback' }).click();
    const d = page.getByRole('dialog');
    await d.getByRole('button', { name: 'Trimite' }).click();
    await d.getByText('Feedback-ul nu poate fi gol').waitFor();
    await d.getByLabel('Email (opțional)').fill('vizitator@example.ro');
    await d.getByLabel('Mesaj').fill('Foarte util!');
    await d.getByRole('button', { name: 'Trimite' }).click();
    await d.getByText('Feedback-ul tău a fost trimis cu succes.').waitFor();
  });
  await ctx.close();
  // Signed in: no e-mail asked, the user id goes with it.
  const s = await makeStudent();
  const ctx2 = await browser.newContext();
  const p2 = await login(ctx2, s.email, s.password);
  await step(p2, 'feedback-user', async () => {
    await p2.getByRole('button', { name: 'Feedback', exact: true }).click();
    const d = p2.getByRole('dialog');
    expect(await d.getByLabel('Email (opțional)').count()).toBe(0);
    await d.getByLabel('Mesaj').fill('  Lipsește modul întunecat.  ');
    await d.getByRole('button', { name: 'Trimite' }).click();
    await d.getByText('Feedback-ul tău a fost trimis cu succes.').waitFor();
    await d.waitFor({ state: 'detached' });
  });
  const { data } = await admin.from('feedback').select('email, body, user_id').eq('body', 'Foarte util!');
  expect(data).toEqual([{ email: 'vizitator@example.ro', body: 'Foarte util!', user_id: null }]);
  const { data: mine } = await admin.from('feedback').select('email, body, user_id').eq('body', 'Lipsește modul întunecat.');
  expect(mine).toEqual([{ email: null, body: 'Lipsește modul întunecat.', user_id: s.id }]);
  await ctx2.close();
});

test('admin promotes a user to Moderator; a student sees Access Denied', async () => {
  const adm = await makeStudent('admin');
  const target = await makeStudent();
  const ctx = await browser.newContext();
  const page = await login(ctx, adm.email, adm.password);
  await step(page, 'admin', async () => {
    await page.goto(base + '/admin');
    await enrolAuthenticator(page); // MFA_REQUIRED_ROLES: an admin's first visit (mfa.test.ts)
    await page.getByLabel(`Rol pentru ${target.email}`).selectOption('moderator');
    await page.getByText('Rol actualizat cu succes').waitFor();
    await page.getByText(`este acum Moderator.`).waitFor();
  });
  await ctx.close();
  const ctx2 = await browser.newContext();
  const p2 = await login(ctx2, target.email, target.password);
  await step(p2, 'access-denied', async () => {
    await p2.goto(base + '/admin');
    await p2.getByText('You do not have permission to access this page.').waitFor();
  });
  await ctx2.close();
});

// Every response carries the server's Content-Security-Policy (no inline scripts, own
// origin only): the app must run under it, realtime WebSocket included.
test('the app runs under its Content-Security-Policy', async () => {
  const s = await makeStudent();
  const ctx = await browser.newContext();
  await ctx.addInitScript(() => {
    (window as unknown as { cspViolations: string[] }).cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { cspViolations: string[] }).cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const page = await login(ctx, s.email, s.password);
  await step(page, 'csp', async () => {
    const res = await page.request.get(base + '/dashboard');
    expect(res.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers()['content-security-policy']).not.toContain("'unsafe-inline' 'unsafe-eval'");
    // The dashboard opens a realtime channel (colleagues on the case) and lists cases.
    await page.getByRole('button', { name: 'Drept Civil', exact: true }).waitFor();
    const realtime = await page.evaluate(async (key) => {
      const ws = new WebSocket(location.origin.replace(/^http/, 'ws') + '/realtime/v1/websocket?vsn=1.0.0&apikey=' + key);
      return await new Promise<string>((resolve) => {
        ws.onopen = () => resolve('open');
        ws.onerror = () => resolve('error');
      });
    }, process.env.ANON_KEY!);
    expect(realtime).toBe('open');
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  });
  await ctx.close();
});
