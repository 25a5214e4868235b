import type { Browser, Page } from 'playwright-core';
import zlib from 'node:zlib';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { base, launch, login, makeStudent, step } from './support';
import { measure, openBySearch, resetAI, script, until } from './study-support';

// The study screens end to end on the seeded curriculum: the tree, the search, the case,
// the code viewer (with the article-jump measurement), the divider, the evaluation and My
// Progress. Figures are printed as MEASURE lines and kept in test-output/measurements.json.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const CASE_TITLE = /Panourile opace ridicate de vecin/;

const button = (page: Page, name: string | RegExp) => page.getByRole('button', { name, exact: typeof name === 'string' });
const expanded = async (page: Page, name: string | RegExp) => (await button(page, name).getAttribute('aria-expanded')) === 'true';
const viewerHeight = (page: Page) => page.getByTestId('viewer-box').evaluate((el) => Math.round(el.getBoundingClientRect().height));

// Clicks an article badge inside the page and returns the ms until that article is laid
// out inside the viewer's visible area, highlighted and rendered (in the page with its
// text, whatever the height estimates of the articles around it), polled per frame.
function jump(page: Page, reference: string, article: string): Promise<number> {
  return page.evaluate(
    ({ reference, article }) =>
      new Promise<number>((resolve, reject) => {
        const badge = [...document.querySelectorAll<HTMLButtonElement>('button.badge.article')].find((b) => b.textContent === reference);
        if (!badge) return reject(new Error('no badge ' + reference));
        const box = document.querySelector('.code-text')!;
        const t0 = performance.now();
        badge.click();
        const check = () => {
          const el = box.querySelector<HTMLElement>(`[data-article="${article}"]`);
          if (el && el.classList.contains('highlight') && el.innerText.startsWith(`Art. ${article}\n`)) {
            const r = el.getBoundingClientRect();
            const b = box.getBoundingClientRect();
            if (r.height > 0 && r.top >= b.top - 2 && r.top < b.bottom - 10) return resolve(performance.now() - t0);
          }
          if (performance.now() - t0 > 5000) return reject(new Error('article ' + article + ' never became visible'));
          requestAnimationFrame(check);
        };
        check();
      }),
    { reference, article },
  );
}

test('study: tree, search, case, article jump, divider, evaluation and My Progress', async () => {
  const s = await makeStudent();
  await resetAI();
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await login(ctx, s.email, s.password);
  await step(page, 'study-tree', async () => {
    await page.getByText('Selectează un caz').waitFor();
    // Browse: domain > category > subcategory > case; the row has no "Caz N:" prefix.
    await button(page, 'Drept Civil').click();
    await button(page, 'Legea civilă: izvoare, aplicare, interpretare').click();
    await button(page, /^Buna-credință, abuzul de drept și eroarea comună/).click();
    const row = page.getByRole('button', { name: /CIV2ABD/ });
    expect(await row.innerText()).not.toMatch(/Caz \d+:/);
    expect(await row.innerText()).toMatch(CASE_TITLE);
    await row.click();
    await page.getByRole('heading', { level: 1, name: CASE_TITLE }).waitFor();
    await page.locator('article.case header .badge.verified').getByText('Verificat', { exact: true }).waitFor();
    for (const h of ['Problema juridică', 'Articole relevante', 'Speta (Cazul)', 'Întrebare']) await page.getByRole('heading', { name: h, exact: true }).waitFor();
    // The date of the law the case was written against (law_as_of of the curriculum file).
    await page.getByText('Legislație la data de 1 noiembrie 2026', { exact: true }).waitFor();
    // Accordion: clicking the open domain closes it; another domain replaces it.
    await button(page, 'Drept Civil').click();
    expect(await button(page, 'Legea civilă: izvoare, aplicare, interpretare').count()).toBe(0);
    await button(page, 'Drept Penal').click();
    expect(await expanded(page, 'Drept Penal')).toBe(true);
    expect(await expanded(page, 'Drept Civil')).toBe(false);
  });

  await step(page, 'study-search', async () => {
    const box = page.getByLabel('Caută cazuri după cod sau titlu');
    // With and without diacritics, the same case; the match is highlighted.
    for (const q of ['Tăgada paternității', 'tagada paternitatii']) {
      await box.fill(q);
      await page.getByRole('option', { name: /CIV10TGP/ }).waitFor();
      expect(await page.getByRole('option').count()).toBe(1);
      expect(await page.getByRole('option').locator('mark').first().innerText()).toMatch(/t[ăa]gada/i);
    }
    await box.fill('zzqqxx');
    await page.getByText('Nu s-au găsit cazuri pentru "zzqqxx"').waitFor();
    // Keyboard: ArrowDown moves to the second result, Enter opens it and expands its branch.
    await box.fill('bicicleta');
    // Two civil titles and one criminal one ("bicicletă", found without its diacritic).
    await until(async () => (await page.getByRole('option').count()) === 3, 'three bicycle cases');
    await box.press('ArrowDown');
    const chosen = page.getByRole('option', { selected: true });
    const code = /^((?:CIV|PEN|CON)\w+)/.exec((await chosen.innerText()).trim())![1];
    const domain = { CIV: 'Drept Civil', PEN: 'Drept Penal', CON: 'Drept Constitutional' }[code.slice(0, 3)]!;
    await box.press('Enter');
    expect(await page.getByRole('option').count()).toBe(0);
    await page.locator('.case header .code', { hasText: code }).waitFor();
    expect(await expanded(page, domain)).toBe(true);
    await page.locator('.tree .case-row[aria-current="true"]', { hasText: code }).waitFor();
    // Escape closes the list; so does a click outside.
    await box.fill('Tăgada');
    await page.getByRole('option').first().waitFor();
    await box.press('Escape');
    expect(await page.getByRole('option').count()).toBe(0);
    await box.fill('Tăgada paternității');
    await page.getByRole('option').first().waitFor();
    await page.getByRole('heading', { level: 1 }).click();
    expect(await page.getByRole('option').count()).toBe(0);
  });

  await step(page, 'study-articles', async () => {
    await openBySearch(page, 'CIV2ABD', CASE_TITLE);
    // The Civil Code is loaded (default tab); then each badge lands on its article.
    // Only the articles near the visible part are in the page (virtualised); each says its
    // place in the whole code to assistive technology.
    const first = page.locator('.code-text article').first();
    await first.waitFor({ timeout: 60_000 });
    expect(Number(await first.getAttribute('aria-setsize'))).toBeGreaterThan(2600);
    expect(await page.locator('.code-text article').count()).toBeLessThan(80);
    const times: number[] = [];
    for (const [ref, n] of [['Art. 1357 C.civ.', '1357'], ['Art. 14 C.civ.', '14'], ['Art. 630 C.civ.', '630'], ['Art. 1353 C.civ.', '1353'], ['Art. 15 C.civ.', '15']]) {
      times.push(await jump(page, ref, n));
      expect(await page.locator('.code-text article.highlight').count()).toBe(1);
      expect(await page.locator('.code-text article.highlight').innerText()).toMatch(new RegExp(`^Art\\. ${n}\\n`));
      expect(await page.locator('.code-text article.highlight').isVisible()).toBe(true);
    }
    const sorted = [...times].sort((a, b) => a - b);
    measure('article_jump_ms_median', sorted[Math.floor(sorted.length / 2)], 'ms', `Civil Code loaded; ${times.map((t) => t.toFixed(0)).join(', ')} ms for 5 badges`);
    measure('article_jump_ms_max', sorted.at(-1)!, 'ms');
    // The README's dashboard picture: a case open, its last article highlighted in the viewer.
    await page.screenshot({ path: 'e2e/screenshots/dashboard.png' });
    expect(sorted.at(-1)!).toBeLessThan(300);
    // "Go to article" and the in-code search.
    await page.getByLabel('Mergi la articolul').fill('2500');
    await page.getByLabel('Mergi la articolul').press('Enter');
    await page.locator('.code-text article.highlight[data-article="2500"]').waitFor();
    expect(await page.locator('.code-text article.highlight[data-article="2500"]').isVisible()).toBe(true);
    await page.getByLabel('Caută în cod').fill('uzufructuarul');
    await page.locator('.code-text mark').first().waitFor({ state: 'attached' });
    await page.locator('.code-text mark').first().waitFor(); // shown from the first hit
    expect((await page.locator('.code-text mark').first().textContent())!.toLowerCase()).toBe('uzufructuarul');
    expect(await page.locator('.code-text article').count()).toBeLessThan(200);
    await page.getByLabel('Caută în cod').fill('');
    // Other tabs load on first selection.
    await page.getByRole('tab', { name: 'Constituția României' }).click();
    await page.locator('.code-text article[data-article="1"]').first().waitFor();
  });

  await step(page, 'study-divider', async () => {
    expect(await viewerHeight(page)).toBe(400);
    const sep = page.getByRole('separator');
    const b = (await sep.boundingBox())!;
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width / 2, b.y + 60, { steps: 6 });
    await page.mouse.up();
    const h = await viewerHeight(page);
    expect(Math.abs(h - 456)).toBeLessThanOrEqual(6);
    // Limits: not above 80 % of the window nor past what leaves the chat its minimum
    // (CHAT_MIN, 300 px, under the 8 px divider), not under 150.
    const panel = await page.locator('.right-panel').evaluate((el) => el.clientHeight);
    const b2 = (await sep.boundingBox())!;
    await page.mouse.move(b2.x + 20, b2.y + 2);
    await page.mouse.down();
    await page.mouse.move(b2.x + 20, 2000, { steps: 4 });
    await page.mouse.up();
    expect(await viewerHeight(page)).toBe(Math.min(720, panel - 8 - 300));
    await sep.focus();
    for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowUp');
    expect(await viewerHeight(page)).toBe(150);
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowDown');
    expect(await viewerHeight(page)).toBe(350);
    await page.reload();
    await page.getByText('Selectează un caz').waitFor();
    expect(await viewerHeight(page)).toBe(350);
  });

  await step(page, 'study-evaluation', async () => {
    await openBySearch(page, 'CIV2ABD', CASE_TITLE);
    await page.getByText('Rezolvă speța!').click();
    const area = page.getByLabel('Soluția ta');
    const evaluate = page.getByRole('button', { name: 'Evaluează Soluția' });
    expect(await evaluate.isDisabled()).toBe(true);
    await area.fill('   ');
    await evaluate.click();
    await page.getByText('Te rugăm să introduci soluția ta.').waitFor();
    // AI-written: the banner, no score.
    await script([{ text: '{"indicii": [{"tip": "A", "citat": "Un text perfect șlefuit de un model de limbaj"}], "decision": "FAILED", "justification": "Structură prea uniformă."}' }]);
    await area.fill('Un text perfect șlefuit de un model de limbaj.');
    await evaluate.click();
    await page.getByText(/miros de algoritm/).waitFor();
    // Its toast hides nothing the student types into (the chat's input).
    // Both boxes are read in the page the moment the toast shows (it lives only 4 s).
    const clear = await page.waitForFunction(() => {
      const note = [...document.querySelectorAll('.toast')].find((el) => el.textContent?.includes('Text generat de AI detectat'));
      const field = document.querySelector('[aria-label="Mesaj"]');
      if (!note || !field) return null;
      const [t, i] = [note.getBoundingClientRect(), field.getBoundingClientRect()];
      return { apart: t.right <= i.left || i.right <= t.left || t.bottom <= i.top || i.bottom <= t.top };
    });
    expect(await clear.jsonValue()).toEqual({ apart: true });
    expect(await page.getByText('Evaluare Completă', { exact: true }).count()).toBe(0);
    // A good one: the card with score, band and the per-criterion chart.
    await area.fill('Vecinul a ridicat panourile doar ca să îl șicaneze pe reclamant: abuz de drept (art. 15 C.civ.), răspundere delictuală (art. 1357 C.civ.).');
    await evaluate.click();
    await page.getByText('Evaluare Completă', { exact: true }).waitFor({ timeout: 60_000 });
    await page.getByText('78/100 · Bine').waitFor();
    const chart = page.getByRole('list', { name: 'Punctaj pe criterii' });
    expect(await chart.getByTestId('criterion').count()).toBe(10);
    expect(await chart.innerText()).toMatch(/2\.2\.1\s+Premisa majoră/);
    expect(await chart.textContent()).toContain('17/20');
    // One tutor exchange on this case, for My Progress.
    await page.getByLabel('Mesaj').fill('Ce înseamnă abuz de drept?');
    await page.getByLabel('Mesaj').press('Enter');
    await page.locator('.chat .msg.assistant', { hasText: 'Ce normă crezi' }).waitFor();
  });

  await step(page, 'study-progress', async () => {
    await page.getByRole('link', { name: 'Progress' }).first().click();
    await page.waitForURL('**/reporting');
    const subs = page.getByTestId('submission');
    await until(async () => (await subs.count()) === 2, 'two submissions');
    expect(await subs.first().innerText()).toMatch(/CIV2ABD · 78\/100 · Exigență Mediu \(3\)/);
    // Attempts are grouped by case: the earlier one is behind its summary.
    await page.getByTestId('case-attempts').filter({ hasText: 'CIV2ABD' }).locator('details.earlier > summary').click();
    // The earlier attempt was blocked by the AI check: named so, not "În curs" (issue 19, bug 6).
    expect(await subs.nth(1).innerText()).toMatch(/CIV2ABD · Blocată de verificarea AI/);
    const stat = async (h: string) => (await page.locator('.card.stat', { has: page.getByRole('heading', { name: h }) }).locator('.big').innerText()).trim();
    expect(await stat('Completed')).toBe('1');
    expect(await stat('Submissions')).toBe('2');
    expect(await stat('Avg Score %')).toBe('78');
    const conv = page.locator('details', { hasText: 'CIV2ABD' }).filter({ hasText: '2 mesaje' });
    await conv.locator('summary').click();
    await conv.getByText('Ce înseamnă abuz de drept?').waitFor();
    const today = new Date().toLocaleDateString('ro-RO', { day: 'numeric', month: 'long', year: 'numeric' });
    const overview = page.locator('section', { has: page.getByRole('heading', { name: 'Cases Overview' }) });
    await overview.getByRole('heading', { name: today }).waitFor();
    expect(await overview.innerText()).toMatch(/CIV2ABD — Caz 1: Panourile/);
    expect(await page.getByRole('img', { name: /Evoluția punctajelor: CIV2ABD 78/ }).getByTestId('score-point').count()).toBe(1);
  });
  await ctx.close();
});

test('measure: initial JavaScript of /dashboard (gzip) and time to the first case list on a warm server', async () => {
  const s = await makeStudent();
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await login(ctx, s.email, s.password);
  await page.getByRole('button', { name: 'Drept Civil', exact: true }).waitFor();
  // A fresh context with the same session (so an empty HTTP cache): every script the
  // page loads before any interaction.
  const ctx2 = await browser.newContext({ viewport: { width: 1400, height: 900 }, storageState: await ctx.storageState() });
  const fresh = await ctx2.newPage();
  const scripts = new Map<string, number>();
  fresh.on('response', async (r) => {
    if (r.request().resourceType() !== 'script') return;
    const body = await r.body().catch(() => null);
    if (body) scripts.set(r.url(), zlib.gzipSync(body).length);
  });
  await fresh.goto(base + '/dashboard');
  await fresh.getByRole('button', { name: 'Drept Civil', exact: true }).waitFor();
  await fresh.waitForLoadState('networkidle');
  const total = [...scripts.values()].reduce((a, b) => a + b, 0);
  measure('dashboard_initial_js_gzip_bytes', total, 'bytes', `${scripts.size} scripts: ${[...scripts.keys()].map((u) => u.split('/').pop()).join(', ')}`);
  expect(total).toBeLessThan(250_000);
  expect([...scripts.keys()].some((u) => /sdk/.test(u))).toBe(false); // the AI SDK loads on first use
  // Time to the first case list (navigation start → tree rendered), on the warm server.
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    await fresh.reload();
    await fresh.getByRole('button', { name: 'Drept Civil', exact: true }).waitFor();
    runs.push(await fresh.evaluate(() => performance.getEntriesByName('casus:case-list')[0]?.startTime ?? NaN));
  }
  // Where the time goes on the last reload (start → end of each request, ms).
  const timeline = await fresh.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((e) => /\/(rest|auth|realtime)\/v1\/|\/assets\/.*\.js|\/codes\/|config/.test(e.name))
      .map((e) => `${new URL(e.name).pathname.split('/').pop()} ${e.startTime.toFixed(0)}→${(e as PerformanceResourceTiming).responseEnd.toFixed(0)}`)
      .join(', ') + ' | mark dashboard-start ' + (performance.getEntriesByName('casus:dashboard-start')[0]?.startTime ?? NaN).toFixed(0),
  );
  console.log('TIMELINE ' + timeline);
  const sorted = [...runs].sort((a, b) => a - b);
  measure('dashboard_first_case_list_ms', sorted[1], 'ms', `median of 3 reloads (${runs.map((r) => r.toFixed(0)).join(', ')} ms), from navigation start`);
  expect(Number.isFinite(sorted[1])).toBe(true);
  await ctx2.close();
  await ctx.close();
});
