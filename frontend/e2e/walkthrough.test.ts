import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, base, launch, login, makeStudent, step } from './support';
import { openBySearch, until } from './study-support';

// Bugs a full walkthrough found (issue: React app, second edition): the account menu, page
// titles and favicon, /signup when signed in, the search list after Escape, a picked case's
// row in the tree, article badge order, and the code viewer after clearing its search.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const menuOpen = (page: Page) => page.locator('details.account-menu').evaluate((d) => (d as HTMLDetailsElement).open);

test('walkthrough: account menu, titles, favicon, sign-up when signed in', async () => {
  const s = await makeStudent();
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await login(ctx, s.email, s.password);
  await step(page, 'walkthrough-menu', async () => {
    const name = 'Student ' + s.username;
    const summary = page.locator('details.account-menu > summary');
    await summary.getByText(name, { exact: true }).waitFor();
    // Its accessible name is the name it shows.
    expect(await summary.getAttribute('aria-label')).toBeNull();
    expect(await summary.ariaSnapshot()).toContain(name);
    // Escape closes it and gives the focus back to it.
    await summary.click();
    expect(await menuOpen(page)).toBe(true);
    await page.keyboard.press('Escape');
    expect(await menuOpen(page)).toBe(false);
    expect(await summary.evaluate((el) => el === document.activeElement)).toBe(true);
    // A click outside closes it.
    await summary.click();
    expect(await menuOpen(page)).toBe(true);
    await page.locator('main').first().click({ position: { x: 5, y: 5 } });
    expect(await menuOpen(page)).toBe(false);
    // Navigating closes it.
    await summary.click();
    await page.locator('details.account-menu .menu').getByRole('link', { name: 'Setări' }).click();
    await page.waitForURL('**/settings');
    await until(async () => !(await menuOpen(page)), 'the menu closed by the navigation');
  });
  await step(page, 'walkthrough-titles', async () => {
    await until(async () => (await page.title()) === 'Setări · Casus', 'the settings title');
    await page.goto(base + '/reporting');
    await until(async () => (await page.title()) === 'Progresul meu · Casus', 'the progress title');
    await page.goto(base + '/dashboard');
    await until(async () => (await page.title()) === 'Spețe · Casus', 'the dashboard title');
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(icon).toBeTruthy();
    const res = await fetch(new URL(icon!, base));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/image\/svg\+xml/);
  });
  await step(page, 'walkthrough-signup-signed-in', async () => {
    await page.goto(base + '/signup');
    await page.waitForURL('**/dashboard');
    expect(await page.getByRole('button', { name: 'Creează cont' }).count()).toBe(0);
  });
  await ctx.close();
  const visitor = await browser.newContext();
  const login2 = await visitor.newPage();
  await login2.goto(base + '/login');
  await until(async () => (await login2.title()) === 'Autentificare · Casus', 'the login title');
  await visitor.close();
});

test('walkthrough: search list, picked row, badge order, viewer search', async () => {
  const s = await makeStudent();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await login(ctx, s.email, s.password);
  await step(page, 'walkthrough-search', async () => {
    await page.getByText('Selectează un caz').waitFor();
    const box = page.getByLabel('Caută cazuri după cod sau titlu');
    await box.fill('Tăgada');
    await page.getByRole('option').first().waitFor();
    await box.press('Escape');
    expect(await page.getByRole('option').count()).toBe(0);
    // The same results come back with an arrow key, no retyping.
    await box.press('ArrowDown');
    await page.getByRole('option').first().waitFor();
    await box.press('Escape');
  });
  await step(page, 'walkthrough-picked-row', async () => {
    // The civil case of the catalogue's last category that has one: its row is far down the
    // tree once its branch opens.
    const cats = await admin.from('law_categories').select('id, name, position').eq('domain', 'civil').order('position');
    const cases = await admin.from('cases').select('case_code, category').eq('domain', 'civil').eq('verified', true);
    if (cats.error || cases.error) throw cats.error ?? cases.error;
    const last = [...cats.data].reverse().find((c) => cases.data.some((x) => x.category === c.id || x.category === c.name))!;
    const code = cases.data.find((x) => x.category === last.id || x.category === last.name)!.case_code;
    const box = page.getByLabel('Caută cazuri după cod sau titlu');
    await box.fill(code);
    await page.getByRole('option', { name: new RegExp(code) }).waitFor();
    await box.press('Enter');
    await page.locator('.case header .code', { hasText: code }).waitFor();
    const row = page.locator('.tree .case-row[aria-current="true"]', { hasText: code });
    await row.waitFor();
    await until(
      async () =>
        row.evaluate((el) => {
          let scroller = el.parentElement;
          while (scroller && !(scroller.scrollHeight > scroller.clientHeight && getComputedStyle(scroller).overflowY !== 'visible')) scroller = scroller.parentElement;
          const r = el.getBoundingClientRect();
          const v = scroller ? scroller.getBoundingClientRect() : { top: 0, bottom: window.innerHeight };
          return r.top >= v.top - 1 && r.bottom <= v.bottom + 1;
        }),
      'the picked row inside the visible part of the tree',
    );
  });
  await step(page, 'walkthrough-badges', async () => {
    await openBySearch(page, 'CIV2ABD', /Panourile opace/);
    const refs = await page.locator('button.badge.article').allInnerTexts();
    expect(refs.length).toBeGreaterThan(2);
    const civil = refs.filter((r) => /C\.civ\./.test(r)).map((r) => Number(/Art\. (\d+)/.exec(r)![1]));
    expect(civil).toEqual([...civil].sort((a, b) => a - b));
  });
  await step(page, 'walkthrough-viewer-search', async () => {
    // The Civil Code is loaded (its articles are virtualised: only those near view are in the page).
    await page.locator('.code-text article[aria-setsize]').first().waitFor({ timeout: 30_000 });
    await page.locator('button.badge.article', { hasText: 'Art. 1357 C.civ.' }).click();
    const hl = page.locator('.code-text article.highlight[data-article="1357"]');
    const onScreen = () =>
      hl.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const b = el.closest('.code-text')!.getBoundingClientRect();
        return r.top >= b.top - 2 && r.top < b.bottom - 10;
      });
    await until(onScreen, 'Art. 1357 on screen after the jump');
    await page.getByLabel('Caută în cod').fill('uzufructuarul');
    await page.locator('.code-text mark').first().waitFor();
    await page.getByLabel('Caută în cod').fill('');
    await until(onScreen, 'Art. 1357 on screen again after clearing the search');
    expect(await hl.innerText()).toMatch(/^Art\. 1357\n/);
  });
  await ctx.close();
});
