// "Încearcă o speță": a visitor reads an easy case with the code viewer without an
// account (an anonymous session), writes an answer that saving, the tutor and grading
// will not take without an account, then creates one from the page and, after
// confirming the address, finds the same answer in the account (the same user id).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, base, launch, mailLink, step, unique } from './support';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

// The signed-in user as supabase-js keeps it in this browser.
async function sessionUser(page: Page): Promise<{ id: string; is_anonymous?: boolean }> {
  return page.evaluate(() => {
    const raw = Object.entries(localStorage).find(([k]) => k.endsWith('-auth-token'))?.[1];
    return JSON.parse(raw ?? 'null')?.user;
  });
}

test('a visitor tries a case without an account, then signs up keeping their text', async () => {
  const ctx = await browser.newContext();
  // As login() does for signed-in pages: waits are on what the page shows, bounded
  // generously for a busy CI machine (the solution panel is a chunk loaded on demand).
  ctx.setDefaultTimeout(60_000);
  const page = await ctx.newPage();
  const answer = 'Ion răspunde pentru prejudiciu: fapta ilicită, vinovăția și legătura de cauzalitate sunt întrunite (art. 1357 C.civ.).';
  let visitorId = '';
  await step(page, 'visitor-reads-a-case', async () => {
    await page.goto(base + '/login');
    await page.getByRole('button', { name: 'Încearcă o speță' }).click();
    await page.waitForURL('**/try');
    await page.getByText('Încerci o speță fără cont.').waitFor();
    // One easy case, with its articles opening in the code viewer.
    await page.locator('article.case .badge.level', { hasText: 'Ușor' }).waitFor();
    const badge = page.locator('button.badge.article').first();
    const reference = (await badge.textContent())!;
    await badge.click();
    const number = /\d+/.exec(reference)![0];
    await page.locator(`[data-testid="viewer-box"] [data-article="${number}"].highlight`).waitFor();
    const user = await sessionUser(page);
    expect(user.is_anonymous).toBe(true);
    visitorId = user.id;
    // Account pages send a visitor back to the case.
    await page.goto(base + '/dashboard');
    await page.waitForURL('**/try');
  });
  await step(page, 'visitor-writes-and-is-asked-for-an-account', async () => {
    await page.getByText('Rezolvă speța!').click();
    await page.getByLabel('Soluția ta').fill(answer);
    await page.getByRole('button', { name: 'Salvează soluția' }).click();
    await page.getByText('Ca să îți salvezi soluția, ai nevoie de un cont.').waitFor();
    await page.getByRole('button', { name: 'Evaluează Soluția' }).click();
    await page.getByText('Ca să îți evaluăm soluția, ai nevoie de un cont.').waitFor();
    await page.getByRole('button', { name: 'Întreabă tutorele' }).click();
    await page.getByText('Ca să vorbești cu tutorele, ai nevoie de un cont.').waitFor();
    // Nothing was written to the database for the visitor.
    const { count } = await admin.from('case_submissions').select('id', { count: 'exact', head: true }).eq('user_id', visitorId);
    expect(count).toBe(0);
    // The text survives a reload.
    await page.reload();
    await page.getByText('Rezolvă speța!').waitFor();
    expect(await page.getByLabel('Soluția ta').inputValue()).toBe(answer);
  });
  const username = unique('vizitator_');
  const email = `${username}@example.ro`;
  await step(page, 'visitor-creates-an-account', async () => {
    await page.getByRole('button', { name: 'Salvează soluția' }).click();
    await page.locator('.account-prompt').getByRole('link', { name: 'Creează cont' }).click();
    await page.waitForURL('**/signup');
    await page.getByLabel('Nume complet').fill('Vizitator Curios');
    await page.getByLabel('Nume de utilizator').fill(username);
    await page.getByText('Disponibil', { exact: true }).waitFor();
    await page.getByLabel('Universitate').selectOption('UB');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Parolă', { exact: true }).fill('parola1');
    await page.getByLabel('Confirmă parola').fill('parola1');
    await page.getByRole('button', { name: 'Creează cont' }).click();
    await page.getByText('Contul a fost creat! Confirmă adresa din emailul pe care ți l-am trimis').waitFor();
  });
  await step(page, 'the-account-keeps-the-text', async () => {
    await page.goto(await mailLink(email));
    // supabase-js takes the session from the fragment and leaves "/dashboard#".
    await page.waitForURL((u) => u.pathname === '/dashboard' && !u.hash.includes('access_token'));
    const area = page.getByLabel('Soluția ta');
    await area.waitFor();
    expect(await area.inputValue()).toBe(answer);
    const user = await sessionUser(page);
    expect(user.id).toBe(visitorId);
    expect(user.is_anonymous).toBe(false);
    const { data } = await admin.auth.admin.getUserById(visitorId);
    expect(data.user?.email).toBe(email);
    expect(data.user?.is_anonymous).toBe(false);
    // The profile was made from the sign-up form's details.
    await page.goto(base + '/settings');
    await page.getByText(username).first().waitFor();
  });
  await ctx.close();
});
