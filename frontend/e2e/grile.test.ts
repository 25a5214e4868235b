import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, base, launch, login, makeStudent, step } from './support';
import { until } from './study-support';

// Grile (#20): practice with explanations and an article jump, spaced repetition bringing a
// wrongly answered grilă back the next day (the browser's clock set with page.clock), and
// an exam simulation to its result, on a phone.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
  // Three grile of our own in one category and level, so the test does not depend on the
  // shipped content (which may add more there: every key is read from the database).
  const rows = [0, 1, 2].map((i) => ({
    code: `GCON99${i}`, domain: 'constitutional', category_id: 'revizuirea_constitutiei', subcategory: 'Inițiativa revizuirii',
    level: 'Dificil', law_as_of: '2026-11-01',
    statement: `Test e2e ${i}: potrivit Constituției, revizuirea poate fi inițiată de:`,
    options: ['Președintele, la propunerea Guvernului;', 'cel puțin o pătrime din deputați sau senatori;', 'cel puțin 100.000 de cetățeni cu drept de vot.'],
    correct: ['a', 'b'],
    explanations: [
      'Corect: art. 150 alin. (1) Const. — revizuirea poate fi inițiată de Președinte, la propunerea Guvernului.',
      'Corect: art. 150 alin. (1) Const. — și de cel puțin o pătrime din numărul deputaților sau al senatorilor.',
      'Greșit: art. 150 alin. (1) Const. — cetățenii trebuie să fie cel puțin 500.000.',
    ],
    citations: [0, 1, 2].map(() => [{ code: 'constitutional', article: '150', label: 'art. 150 alin. (1) Const.' }]),
  }));
  const r = await admin.from('grile_questions').upsert(rows, { onConflict: 'code' });
  if (r.error) throw r.error;
});
afterAll(async () => {
  await browser?.close();
});

type Key = { correct: string[] };
async function keyOf(page: Page): Promise<Key> {
  const statement = (await page.getByTestId('statement').first().textContent())!.trim();
  const r = await admin.from('grile_questions').select('correct').eq('statement', statement).single();
  if (r.error) throw r.error;
  return r.data as Key;
}
// A wrong answer: the options outside the key (or, when all three are right, just one).
const wrongOf = (k: Key) => {
  const rest = ['a', 'b', 'c'].filter((l) => !k.correct.includes(l));
  return rest.length ? rest : ['a'];
};

async function choose(page: Page, letters: string[], keys: 'digits' | 'letters' | 'tap' = 'digits') {
  for (const l of letters) {
    if (keys === 'tap') await page.getByTestId(`option-${l}`).first().tap();
    else await page.keyboard.press(keys === 'digits' ? String('abc'.indexOf(l) + 1) : l);
  }
  for (const l of ['a', 'b', 'c']) {
    await until(async () => (await page.getByTestId(`option-${l}`).first().getAttribute('aria-checked')) === String(letters.includes(l)), `option ${l} toggled`);
  }
}

async function setup(page: Page, count: number) {
  await page.getByLabel('Domeniu').selectOption('constitutional');
  await page.getByLabel('Revizuirea Constituției').check();
  await page.getByLabel('Nivel').selectOption('Dificil');
  await page.getByLabel('Număr de grile').fill(String(count));
}

test('practice: keyboard answers, explanations, an article jump, and the wrong one back the next day', async () => {
  const s = await makeStudent();
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await login(ctx, s.email, s.password);
  await step(page, 'grile-practice', async () => {
    // The session starts "yesterday" on the browser's clock (page.clock: reviews are dated
    // by the browser, within 36 hours of the server's clock); later the clock comes back to
    // today, the next day for these answers.
    const today = Date.now();
    await page.clock.setFixedTime(new Date(today - 25 * 3600 * 1000));
    await page.goto(base + '/dashboard');
    await page.getByRole('link', { name: 'Grile', exact: true }).click();
    await page.waitForURL('**/grile');
    await page.getByTestId('due-count').waitFor();
    expect(await page.getByTestId('due-count').textContent()).toBe('Nicio grilă de recapitulat acum.');
    await setup(page, 2);
    await page.getByRole('button', { name: 'Începe exersarea' }).click();

    // First grilă: answered wrongly with the keyboard (digits), Enter checks.
    await page.getByText('Grila 1 din 2').waitFor();
    const first = (await page.getByTestId('statement').textContent())!;
    const k1 = await keyOf(page);
    await choose(page, wrongOf(k1), 'digits');
    expect(await page.getByTestId('explanation-a').count()).toBe(0); // nothing before answering
    await page.keyboard.press('Enter');
    await page.getByText(/^Răspuns greșit/).waitFor();
    for (const l of ['a', 'b', 'c']) {
      const text = (await page.getByTestId(`explanation-${l}`).textContent())!;
      expect(text).toMatch(k1.correct.includes(l) ? /Corect:/ : /Greșit:/);
    }
    expect(await page.getByText(/revine mâine/).count()).toBe(1);

    // A badge opens the article in the code viewer.
    const badge = page.getByTestId('explanation-a').locator('.badge.article').first();
    const num = (await badge.textContent())!.match(/art\. (\d+)/i)![1];
    await badge.click();
    await page.getByRole('dialog', { name: 'Coduri' }).waitFor();
    await page.locator(`.grile-code-panel article.highlight[data-article="${num}"]`).waitFor();
    await page.screenshot({ path: 'e2e/screenshots/grile.png' });
    expect(await page.locator('.grile-code-panel [role="tab"][aria-selected="true"]').textContent()).toMatch(/Constituția|Codul/);
    await page.keyboard.press('Escape');
    await until(async () => (await page.getByRole('dialog', { name: 'Coduri' }).count()) === 0, 'code panel closed');

    // Enter moves on; the second is answered rightly with letter keys.
    await page.keyboard.press('Enter');
    await page.getByText('Grila 2 din 2').waitFor();
    const k2 = await keyOf(page);
    await choose(page, k2.correct, 'letters');
    await page.keyboard.press('Enter');
    await page.getByText('Răspuns corect').waitFor();
    await page.keyboard.press('Enter');
    await page.getByText('Ai răspuns corect la 1 din 2 grile.').waitFor();

    // The next day (the browser's clock, 25 hours on): only the wrong one is due, first.
    await page.clock.setFixedTime(new Date(today + 60_000));
    await page.reload();
    await page.getByTestId('due-count').waitFor();
    expect(await page.getByTestId('due-count').textContent()).toBe('1 grilă de recapitulat');
    await page.getByRole('button', { name: 'Recapitulează acum' }).click();
    await page.getByText(/Grila 1 din 1 · de recapitulat/).waitFor();
    expect(await page.getByTestId('statement').textContent()).toBe(first);
    await choose(page, k1.correct, 'digits');
    await page.keyboard.press('Enter');
    await page.getByText('Răspuns corect').waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sesiune nouă' }).click();
    await until(async () => (await page.getByTestId('due-count').textContent()) === 'Nicio grilă de recapitulat acum.', 'nothing due after the review');

    // My Progress: the category's grile, in learning (answered, next review soon) and new.
    await page.getByRole('link', { name: 'Progress', exact: true }).click();
    const row = page.getByTestId('grile-progress-row').filter({ hasText: 'Revizuirea Constituției' });
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(Number(cells[1])).toBe(0); // stăpânite
    expect(Number(cells[2])).toBe(2); // în învățare
    expect(Number(cells[3])).toBeGreaterThanOrEqual(1); // noi: the third test grilă at least
  });
  await ctx.close();
});

test('exam simulation on a phone: timed grid, scored as the bar exam, per category, reviewable', async () => {
  const s = await makeStudent();
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const page = await login(ctx, s.email, s.password);
  await step(page, 'grile-exam', async () => {
    await page.goto(base + '/grile');
    await page.getByRole('tab', { name: 'Simulare examen' }).tap();
    await setup(page, 3);
    await page.getByLabel('Durata (minute)').fill('5');
    await page.getByRole('button', { name: 'Începe simularea' }).tap();
    const timer = page.getByRole('timer', { name: 'Timp rămas' });
    await timer.waitFor();
    expect(await timer.textContent()).toMatch(/^[45]:\d\d$/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // Right, a subset of the key (scores nothing), right.
    const plan: ('right' | 'subset')[] = ['right', 'subset', 'right'];
    for (let i = 0; i < 3; i++) {
      await page.getByText(`Grila ${i + 1} din 3`).waitFor();
      const k = await keyOf(page);
      const letters = plan[i] === 'right' ? k.correct : k.correct.length > 1 ? k.correct.slice(0, 1) : [k.correct[0] === 'a' ? 'b' : 'a'];
      await choose(page, letters, 'tap');
      expect(await page.locator('.explanation').count()).toBe(0); // no key during the exam
      if (i < 2) await page.getByRole('button', { name: 'Următoarea', exact: true }).tap();
    }
    await page.getByRole('button', { name: 'Grila 3, cu răspuns' }).waitFor();
    await page.getByRole('button', { name: 'Încheie simularea' }).tap();
    await page.getByRole('button', { name: 'Da, încheie' }).tap();
    await page.getByTestId('exam-score').waitFor();
    expect(await page.getByTestId('exam-score').textContent()).toBe('2 din 3 grile corecte (67%)');
    const row = page.getByTestId('category-result');
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toBe('Revizuirea Constituției2 / 3');
    expect(await page.getByTestId('review-item').count()).toBe(3);
    expect(await page.locator('[data-testid="review-item"] .explanation').count()).toBe(9);
    expect(await page.getByTestId('review-item').nth(1).textContent()).toMatch(/Greșit — ai ales/);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // The score is the server's: the exam row says the same.
    const e = await admin.from('grile_exams').select('correct_count, question_count, finished_at').eq('user_id', s.id).single();
    expect(e.data).toMatchObject({ correct_count: 2, question_count: 3 });
    expect(e.data!.finished_at).not.toBeNull();

    // Past results stay reviewable; an exam left by a reload is resumed with its time.
    await page.getByRole('button', { name: 'Simulare nouă' }).tap();
    const past = page.getByTestId('past-exam');
    await past.waitFor();
    expect(await past.textContent()).toMatch(/2 din 3 corecte/);
    await past.getByRole('button', { name: 'Revizuiește' }).tap();
    await page.getByTestId('exam-score').waitFor();
    await page.getByRole('button', { name: 'Simulare nouă' }).tap();
    await page.getByRole('button', { name: 'Începe simularea' }).tap(); // the defaults: 30 grile, 45 minutes
    await timer.waitFor();
    await page.reload();
    await page.getByRole('tab', { name: 'Simulare examen' }).tap();
    await page.getByRole('button', { name: 'Continuă simularea' }).tap();
    await timer.waitFor();
    expect(await timer.textContent()).toMatch(/^4[45]:\d\d$/);
  });
  await ctx.close();
});
