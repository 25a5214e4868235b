import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, base, launch, login, makeStudent, step, unique } from './support';
import { until } from './study-support';

// The leaderboard (/clasament) with and without the opt-out: two students with points see
// each other; one ticks "Nu mă afișa în clasamente" in Settings and vanishes from the
// other's boards at once (every tab), while seeing their own place flagged as hidden.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

// n completed cases for the student, as the grader records them (service role): a
// verified case each and a graded submission above 50.
async function givePoints(userId: string, n: number) {
  for (let i = 0; i < n; i++) {
    const code = unique('CIVLB').toUpperCase();
    const c = await admin.from('cases').insert({ case_code: code, title: 'Caz clasament ' + code, domain: 'civil', verified: true }).select('id').single();
    if (c.error) throw c.error;
    const s = await admin.from('case_submissions').insert({
      user_id: userId, case_id: c.data.id, submission_text: 'Soluția mea', status: 'graded', score: '80/100', score_value: 80,
      feedback_text: 'Bine', feedback_at: new Date().toISOString(),
    });
    if (s.error) throw s.error;
  }
}

const board = (page: Page) => page.getByRole('table', { name: 'Clasament' });
const mine = (page: Page) => page.getByRole('table', { name: 'Poziția ta' });
const tab = (page: Page, name: string) => page.getByRole('tab', { name, exact: true });

// Waits until the board is shown (not loading). The busy flag and the selected tab come
// from the same render, so after select() this is the chosen tab's board.
async function shown(page: Page) {
  await page.locator('#clasament-continut[aria-busy="false"]').waitFor();
  await page.getByRole('heading', { name: 'Poziția ta' }).waitFor();
}

async function select(page: Page, name: string) {
  await tab(page, name).tap();
  await page.locator('[role="tab"][aria-selected="true"]', { hasText: name }).waitFor();
  await shown(page);
}

const pageText = (page: Page) => page.locator('main').innerText();

test('leaderboard with and without opt-out', async () => {
  const [s1, s2] = [await makeStudent(), await makeStudent()];
  await givePoints(s1.id, 3);
  await givePoints(s2.id, 2);

  // s2 on a phone.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const p2 = await login(phone, s2.email, s2.password);
  await step(p2, 'leaderboard-visible', async () => {
    // On a phone the header's links are behind its menu.
    await p2.getByRole('button', { name: 'Meniu' }).click();
    await p2.getByRole('link', { name: 'Clasament', exact: true }).click();
    await p2.waitForURL('**/clasament');
    await shown(p2);
    expect(await p2.title()).toBe('Clasament · Casus');
    expect(await tab(p2, 'Săptămâna aceasta').getAttribute('aria-selected')).toBe('true');
    // s1 is on the board with 30 points this week, the university code beside the name.
    const row1 = board(p2).getByRole('row').filter({ hasText: s1.username });
    await row1.waitFor();
    expect(await row1.locator('td').allInnerTexts()).toEqual([expect.stringMatching(/^\d+$/), s1.username, 'UB', '30']);
    // Only the four columns.
    expect(await board(p2).locator('th').allInnerTexts()).toEqual(['Loc', 'Utilizator', 'Univ.', 'Puncte']);
    // "Poziția ta": s2 marked as the current row, s1 among the neighbours.
    const me = mine(p2).locator('tr[aria-current="true"]');
    expect(await me.locator('td').nth(1).innerText()).toBe(`${s2.username} (tu)`);
    expect(await me.locator('td').nth(3).innerText()).toBe('20');
    expect(await mine(p2).innerText()).toContain(s1.username);
    // Fits the phone: nothing scrolls sideways.
    expect(await p2.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await p2.screenshot({ path: 'e2e/screenshots/leaderboard-phone.png', fullPage: true });
    // The other tabs list s1 too.
    await select(p2, 'Tot timpul');
    await board(p2).getByRole('row').filter({ hasText: s1.username }).waitFor();
    await select(p2, 'Universitatea mea');
    expect(await p2.getByRole('heading', { name: /universitatea ta \(UB\)/ }).count()).toBe(1);
    await board(p2).getByRole('row').filter({ hasText: s1.username }).waitFor();
  });

  // s1 opts out in Settings: saved at once, with feedback, and still ticked after a reload.
  const desk = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p1 = await login(desk, s1.email, s1.password);
  await step(p1, 'leaderboard-optout', async () => {
    await p1.goto(base + '/settings');
    const box = p1.getByRole('checkbox', { name: 'Nu mă afișa în clasamente' });
    await until(async () => await box.isEnabled(), 'opt-out checkbox loaded', 30_000);
    expect(await box.isChecked()).toBe(false);
    await box.check();
    await p1.getByRole('status').filter({ hasText: 'Salvat.' }).waitFor();
    await p1.getByText('Nu mai apari în clasamente.').waitFor();
    const { data } = await admin.from('user_profiles').select('hide_from_leaderboards').eq('id', s1.id).single();
    expect(data?.hide_from_leaderboards).toBe(true);
    await p1.reload();
    await until(async () => await box.isEnabled(), 'opt-out checkbox reloaded', 30_000);
    expect(await box.isChecked()).toBe(true);

    // s1's own board: not on it, but told where they would be.
    await p1.goto(base + '/clasament');
    await shown(p1);
    await p1.getByText(/Ai ales să nu apari în clasamente/).waitFor();
    expect(await p1.getByRole('note').innerText()).toMatch(/Locul tău ar fi \d+, cu 30 de puncte\./);
    expect(await board(p1).innerText()).not.toContain(s1.username);
    await p1.screenshot({ path: 'e2e/screenshots/leaderboard-hidden.png' });
  });

  // s2 no longer sees s1 anywhere: either period, either scope, top or neighbours.
  await step(p2, 'leaderboard-hidden', async () => {
    await p2.reload();
    for (const period of ['Săptămâna aceasta', 'Tot timpul']) {
      for (const scope of ['Global', 'Universitatea mea']) {
        await select(p2, period);
        await select(p2, scope);
        await mine(p2).locator('tr[aria-current="true"]').waitFor();
        expect(await pageText(p2), `${period} / ${scope}`).not.toContain(s1.username);
        expect(await mine(p2).innerText()).toContain(s2.username);
      }
    }
  });

  // Opting back in puts s1 back on s2's board.
  await step(p1, 'leaderboard-optin', async () => {
    await p1.goto(base + '/settings');
    const box = p1.getByRole('checkbox', { name: 'Nu mă afișa în clasamente' });
    await until(async () => await box.isEnabled(), 'opt-out checkbox loaded', 30_000);
    await box.uncheck();
    await p1.getByText('Apari din nou în clasamente.').waitFor();
  });
  await step(p2, 'leaderboard-back', async () => {
    await p2.reload();
    await shown(p2);
    await board(p2).getByRole('row').filter({ hasText: s1.username }).waitFor();
  });
  await phone.close();
  await desk.close();
});
