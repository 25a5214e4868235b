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
    await script([{ text: '{"probability": 91, "decision": "FAILED", "justification": "Prea perfect."}' }]);
    await area.fill('Un text scris de un model.');
    await button.click();
    await page.getByText('Text generat de AI detectat').waitFor();
    await page.getByText(/miros de algoritm/).waitFor();
    await area.fill('Ion răspunde pentru fapta proprie: art. 1357 C.civ. cere faptă ilicită, prejudiciu, legătură de cauzalitate și vinovăție.');
    await button.click();
    await page.getByText('Evaluare Completă', { exact: true }).waitFor({ timeout: 60_000 });
    await page.getByText('78/100 · Bine').waitFor();
    await page.getByText('Evaluare completă!', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Resetează' }).click();
    if ((await area.inputValue()) !== '') throw new Error('Resetează kept the text');
  });
  await ctx.close();
});
