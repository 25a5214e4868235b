import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { launch, login, makeStudent, step } from './support';
import { resetAI, until } from './study-support';

// A phone-sized run (390x844, touch): the sidebar is a drawer, the code viewer and the
// tutor are bottom sheets.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const drawer = (page: Page) => page.getByRole('dialog', { name: 'Law Categories' });
const sheet = (page: Page, name: 'Coduri' | 'Casus AI') => page.getByRole('dialog', { name });
const box = async (page: Page, sel: string) => page.locator(sel).evaluate((el) => el.getBoundingClientRect().toJSON() as DOMRect);

test('mobile: drawer and bottom sheets, by touch and keyboard', async () => {
  const s = await makeStudent();
  await resetAI();
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const page = await login(ctx, s.email, s.password);
  await step(page, 'mobile', async () => {
    await page.getByText('Selectează un caz').waitFor();
    // Closed at first; nothing overflows sideways.
    expect(await drawer(page).count()).toBe(0);
    expect(await page.locator('.right-panel.sheet.open').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // The drawer opens from the toolbar, closes with Escape and with a tap outside.
    const toggle = page.getByRole('button', { name: /Law Categories/ });
    await toggle.tap();
    await drawer(page).waitFor();
    const d = await box(page, '.sidebar.drawer');
    expect(d.left).toBe(0);
    expect(d.width).toBeLessThan(390);
    expect(d.height).toBeGreaterThan(800);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Închide categoriile');
    await page.getByLabel('Caută cazuri după cod sau titlu').focus();
    await page.keyboard.press('Escape');
    await until(async () => (await drawer(page).count()) === 0, 'drawer closed by Escape');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toMatch(/Law Categories/);
    await toggle.tap();
    await drawer(page).waitFor();
    await page.touchscreen.tap(375, 500);
    await until(async () => (await drawer(page).count()) === 0, 'drawer closed by a tap outside');

    // Browsing the tree in the drawer; picking a case closes it.
    await toggle.tap();
    await page.getByRole('button', { name: 'Drept Civil', exact: true }).tap();
    await page.getByRole('button', { name: 'Legea civilă: izvoare, aplicare, interpretare', exact: true }).tap();
    await page.getByRole('button', { name: /^Buna-credință, abuzul de drept și eroarea comună/ }).tap();
    await page.getByRole('button', { name: /CIV2ABD/ }).tap();
    await page.getByRole('heading', { level: 1, name: /Panourile opace/ }).waitFor();
    expect(await drawer(page).count()).toBe(0);

    // An article badge opens the code sheet on that article.
    await page.getByRole('button', { name: 'Art. 1357 C.civ.' }).tap();
    await sheet(page, 'Coduri').waitFor();
    await page.locator('.code-text article.highlight[data-article="1357"]').waitFor({ timeout: 60_000 });
    await until(async () => Math.round((await box(page, '.right-panel.sheet')).bottom) === 844, 'the sheet slid up');
    const sh = await box(page, '.right-panel.sheet');
    expect(sh.height).toBeGreaterThan(600);
    expect(sh.width).toBe(390);
    const art = await box(page, '.code-text article.highlight');
    expect(art.top).toBeGreaterThanOrEqual(sh.top);
    expect(art.top).toBeLessThan(844);
    // The close button has the focus; it closes the sheet.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Închide');
    await page.getByRole('button', { name: 'Închide', exact: true }).tap();
    await until(async () => (await page.locator('.right-panel.sheet.open').count()) === 0, 'code sheet closed');

    // The tutor sheet: send with the button (touch), close with Escape.
    await page.getByRole('button', { name: /Casus AI/ }).tap();
    await sheet(page, 'Casus AI').waitFor();
    await page.getByText(/Te ghidez în 4 runde/).waitFor();
    await page.getByLabel('Mesaj').fill('Ce este abuzul de drept?');
    await page.getByRole('button', { name: 'Trimite' }).tap();
    await page.locator('.chat .msg.assistant', { hasText: 'Ce normă crezi' }).waitFor();
    await page.keyboard.press('Escape');
    await until(async () => (await page.locator('.right-panel.sheet.open').count()) === 0, 'chat sheet closed');

    // Dragging the sheet's handle down closes it.
    await page.getByRole('button', { name: /Coduri/ }).tap();
    await sheet(page, 'Coduri').waitFor();
    await until(async () => Math.round((await box(page, '.right-panel.sheet')).bottom) === 844, 'the sheet slid up');
    const head = await box(page, '.sheet-head');
    await page.mouse.move(head.left + 60, head.top + 10);
    await page.mouse.down();
    await page.mouse.move(head.left + 60, head.top + 200, { steps: 5 });
    await page.mouse.up();
    await until(async () => (await page.locator('.right-panel.sheet.open').count()) === 0, 'sheet closed by a swipe');
    await page.screenshot({ path: 'test-output/mobile-dashboard.png' });
  });
  await ctx.close();
});
