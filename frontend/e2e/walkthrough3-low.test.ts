import type { Browser, Page } from 'playwright-core';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, base, launch, login, mailLink, makeStudent, step, unique } from './support';
import { resetAI, script } from './study-support';
import { enrolAuthenticator } from './mfa-support';
import { DESKTOP, LAPTOP, makeCase, openCase, PHONE, student } from './walkthrough3-support';

// Walkthrough 3 (issue 31): the low bugs not covered by walkthrough3.test.ts, each at the
// size where it was seen.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

type Box = { left: number; right: number; top: number; bottom: number };
const apart = (a: Box, b: Box) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
const rect = (page: Page, sel: string) =>
  page.locator(sel).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height };
  });

test('bug 15 (low): the forgot-password dialog opens fresh after an error', async () => {
  const ctx = await browser.newContext({ viewport: DESKTOP });
  ctx.setDefaultTimeout(60_000);
  const page = await ctx.newPage();
  await step(page, 'w3-bug15-forgot', async () => {
    await page.goto(base + '/login');
    await page.getByRole('button', { name: 'Ai uitat parola?' }).click();
    const dialog = page.getByRole('dialog', { name: 'Resetare parolă' });
    await dialog.getByLabel('Email').fill('nu-e-adresa');
    await dialog.getByRole('button', { name: 'Trimite linkul' }).click();
    await dialog.getByText('Te rog introdu o adresă de email validă').waitFor();
    await dialog.getByRole('button', { name: 'Anulează' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Ai uitat parola?' }).click();
    await dialog.getByLabel('Email').waitFor();
    expect(await dialog.getByLabel('Email').inputValue()).toBe('');
    expect(await dialog.getByRole('alert').count()).toBe(0);
  });
  await ctx.close();
});
