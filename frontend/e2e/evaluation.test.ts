import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, test } from 'vitest';
import { admin, launch, login, makeStudent, step } from './support';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function script(replies: object[]) {
  await fetch(`${process.env.FAKE_AI_URL}/_script`, { method: 'POST', body: JSON.stringify({ replies }) });
}

test('evaluation: empty text, AI-written text, then a graded solution', async () => {
  const s = await makeStudent();
  const code = `EVL${Date.now() % 100000}`;
  const { error } = await admin.from('cases').insert({ case_code: code, title: 'Caz 1: Evaluare', domain: 'civil', verified: true, category: null });
  if (error) throw error;
  const ctx = await browser.newContext();
  const page = await login(ctx, s.email, s.password);
  await step(page, 'evaluation', async () => {
    await page.getByLabel('Caută cazuri după cod sau titlu').fill(code);
    await page.getByRole('option').first().waitFor();
    await page.keyboard.press('Enter');
    await page.getByText('Rezolvă speța!').click();
    const area = page.getByLabel('Soluția ta');
    const button = page.getByRole('button', { name: 'Evaluează Soluția' });
    if (!(await button.isDisabled())) throw new Error('evaluate enabled with an empty text');
    await script([{ text: '{"indicii": [{"tip": "A", "citat": "Un text scris de un model"}], "decision": "FAILED", "justification": "Prea perfect."}' }]);
    await area.fill('Un text scris de un model.');
    await button.click();
    await page.getByText('Text generat de AI detectat').waitFor();
    await page.getByText(/miros de algoritm/).waitFor();
    await area.fill('Ion răspunde pentru fapta proprie: art. 1357 C.civ. cere faptă ilicită, prejudiciu, legătură de cauzalitate și vinovăție.');
    await page.getByRole('radio', { name: /Greu \(5\)/ }).check();
    await button.click();
    // The success toast lives 4 s (spec): watch for it from the click, alongside the result,
    // so a slow machine cannot let it come and go between two sequential waits.
    await Promise.all([
      page.getByText('Evaluare completă!', { exact: true }).waitFor({ timeout: 60_000 }),
      page.getByText('Evaluare Completă', { exact: true }).waitFor({ timeout: 60_000 }),
      page.getByText('78/100 · Bine').waitFor({ timeout: 60_000 }),
    ]);
    await page.getByRole('button', { name: 'Resetează' }).click();
    if ((await area.inputValue()) !== '') throw new Error('Resetează kept the text');
    // Resetează starts over: the strictness returns to its default, Mediu (3).
    if (!(await page.getByRole('radio', { name: /Mediu \(3\)/ }).isChecked())) throw new Error('Resetează kept the strictness');
  });
  await ctx.close();
});

test('My Progress names blocked and failed submissions and leads back to the case', async () => {
  const s = await makeStudent();
  const code = `EVF${Date.now() % 100000}`;
  const { error } = await admin.from('cases').insert({ case_code: code, title: 'Caz 1: Evaluare eșuată', domain: 'civil', verified: true, category: null });
  if (error) throw error;
  const ctx = await browser.newContext();
  const page = await login(ctx, s.email, s.password);
  const failedText = 'Soluția mea: art. 1357 C.civ. cere faptă ilicită, prejudiciu, legătură de cauzalitate și vinovăție.';
  await step(page, 'blocked-and-failed', async () => {
    await page.getByLabel('Caută cazuri după cod sau titlu').fill(code);
    await page.getByRole('option').first().waitFor();
    await page.keyboard.press('Enter');
    await page.getByText('Rezolvă speța!').click();
    const area = page.getByLabel('Soluția ta');
    const button = page.getByRole('button', { name: 'Evaluează Soluția' });
    await script([{ text: '{"indicii": [{"tip": "A", "citat": "Un text scris de un model"}], "decision": "FAILED", "justification": "Prea perfect."}' }]);
    await area.fill('Un text scris de un model.');
    await button.click();
    await page.getByText('Text generat de AI detectat').waitFor();
    // The upstream fails on every retry of the next check (the gateway's three tries for
    // each of the SDK's three attempts).
    await script(Array.from({ length: 9 }, () => ({ status: 500 })));
    await area.fill(failedText);
    await button.click();
    await page.getByRole('alert').filter({ hasText: /eroare|problemă/i }).first().waitFor({ timeout: 60_000 });
  });
  await step(page, 'progress-labels', async () => {
    await page.goto(new URL('/reporting', page.url()).href);
    const rows = page.getByTestId('submission');
    await rows.filter({ hasText: 'Evaluare eșuată — reîncearcă' }).waitFor();
    // The blocked one is the earlier attempt on the same case.
    await page.getByText('O încercare anterioară').click();
    await rows.filter({ hasText: 'Blocată de verificarea AI' }).waitFor();
    if ((await rows.filter({ hasText: 'În curs' }).count()) !== 0) throw new Error('a dead submission still reads "În curs"');
  });
  await step(page, 'back-to-the-case', async () => {
    await page.getByTestId('submission').filter({ hasText: 'Evaluare eșuată — reîncearcă' }).getByRole('link', { name: 'Deschide speța' }).click();
    await page.waitForURL((u) => u.pathname === '/dashboard');
    await page.getByRole('heading', { name: /Evaluare eșuată/ }).first().waitFor();
    // "Rezolvă speța!" opens by itself on a failed evaluation (walkthrough 3, bug 7), with
    // the failed text back in the editor, ready to be sent again.
    const area = page.getByLabel('Soluția ta');
    await page.getByText(/Evaluarea anterioară a eșuat/).waitFor();
    if ((await area.inputValue()) !== failedText) throw new Error('the failed text was not kept');
  });
  await ctx.close();
});
