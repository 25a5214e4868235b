import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as shared from './support';
import { admin, login, makeStudent, unique } from './support';
import { script } from './study-support';

// Helpers of the walkthrough-3 browser tests (walkthrough3*.test.ts): the sizes where the
// bugs were seen, a case of one's own, opening it, a signed-in student, a graded answer.

export const DESKTOP = { width: 1440, height: 900 };
export const LAPTOP = { width: 1366, height: 768 };
export const PHONE = { width: 390, height: 844 };

export const PASSED = { text: '{"probability": 8, "decision": "PASSED", "justification": "Ezitări și exemple proprii."}' };
// A block needs a chat assistant's trace quoted from the student's text (the server checks the quote).
export const FAILED = { text: JSON.stringify({ indicii: [{ tip: 'A', citat: 'fapta proprie, art. 1357' }], decision: 'FAILED', justification: 'Formulă de asistent.' }) };
export const STRENGTHS = 'premisa majoră bine aleasă';
export const VERDICT = `Puncte forte: ${STRENGTHS}`;

// A grade as the grader answers it (JSON, sub-items; the server sums and writes the
// feedback, ending with the overall verdict): the ten items' scores in rubric order, spread
// over their sub-items, for a case of one problem. The server grades twice, so the same
// reply is scripted for both passes.
export const gradeReply = (scores: number[]) => shared.gradeReply(scores, STRENGTHS, 'premisa minoră prea sumară');

// A verified civil case of its own (no category: the search opens it).
export async function makeCase(prefix: string, extra: Record<string, unknown> = {}) {
  const code = unique(prefix).slice(0, 12).toUpperCase();
  const { error } = await admin.from('cases').insert({ case_code: code, title: `Caz 1: ${prefix} răspunderea vecinului`, domain: 'civil', verified: true, category: null, ...extra });
  if (error) throw error;
  return code;
}

export async function openCase(page: Page, code: string, expand = true) {
  const box = page.getByLabel('Caută cazuri după cod sau titlu');
  await box.fill(code);
  await page.getByRole('option', { name: new RegExp(code) }).waitFor();
  await box.press('Enter');
  await page.locator('.case header .code', { hasText: code }).waitFor();
  if (expand) await page.locator('.case details.solve > summary').click();
}

export async function student(browser: Browser, size: { width: number; height: number }): Promise<{ ctx: BrowserContext; page: Page; s: Awaited<ReturnType<typeof makeStudent>> }> {
  const s = await makeStudent();
  const ctx = await browser.newContext({ viewport: size, colorScheme: 'light' });
  const page = await login(ctx, s.email, s.password);
  return { ctx, page, s };
}

// Grades an answer through the page (the fake AI passes the check, then grades).
export async function gradeOnce(page: Page, code: string) {
  await openCase(page, code);
  await page.getByLabel('Soluția ta').fill('Vecinul răspunde delictual: fapta ilicită, prejudiciul, legătura de cauzalitate și vinovăția sunt întrunite (art. 1357 C.civ.).');
  await script([PASSED, ...gradeReply([4, 6, 4, 5, 8, 4, 8, 15, 10, 12])]);
  await page.getByRole('button', { name: 'Evaluează Soluția' }).click();
  await page.getByRole('region', { name: 'Evaluare Completă' }).waitFor();
}
