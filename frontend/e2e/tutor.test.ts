import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, launch, login, makeStudent, step } from './support';
import { aiRequests, openBySearch, resetAI, script, until } from './study-support';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const CLOSING = /Am parcurs împreună cele 4 runde/;
const FIRST = 'Prima întrebare: ce condiții cere articolul 1357 pentru răspunderea civilă delictuală?';

const bubbles = (page: Page) => page.locator('[data-testid="chat-messages"] .msg');
const texts = async (page: Page) => (await bubbles(page).allInnerTexts()).map((t) => t.trim());

async function waitForReplies(page: Page, n: number) {
  // Greeting + n exchanges, and no reply still streaming.
  await until(async () => (await bubbles(page).count()) === 1 + 2 * n && !(await page.locator('.typing').count()) && !(await page.locator('.chat .spinner').count()), `${n} tutor replies`);
}

test('tutor: streamed replies, 4 rounds then the closing message, saved and shown after reload; errors remove the message', async () => {
  const s = await makeStudent();
  await resetAI();
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await login(ctx, s.email, s.password);
  const { data: c } = await admin.from('cases').select('id, title').eq('case_code', 'CIV2ABD').single();
  await step(page, 'tutor', async () => {
    await openBySearch(page, 'CIV2ABD', /Panourile opace/);
    const input = page.getByLabel('Mesaj');
    await page.getByText(/Te ghidez în 4 runde/).waitFor();
    await expect.poll(() => input.isDisabled()).toBe(false);
    expect(await input.getAttribute('placeholder')).toBe('Scrie întrebarea ta aici...');

    // Shift+Enter is a new line; a blank message is not sent.
    await input.fill('   ');
    await input.press('Enter');
    await input.fill('Nu știu');
    await input.press('Shift+Enter');
    await input.pressSequentially('de unde să încep.');
    expect(await input.inputValue()).toBe('Nu știu\nde unde să încep.');
    expect(await aiRequests()).toHaveLength(0);

    // Round 1 streams word by word; a send while it streams is ignored.
    await script([{ text: FIRST, delay_ms: 120 }]);
    await input.press('Enter');
    await until(async () => {
      const last = (await texts(page)).at(-1) ?? '';
      return last.startsWith('Prima') && !last.endsWith('delictuală?');
    }, 'a partly streamed reply');
    await input.fill('Trimis în timp ce tutorele scrie');
    await input.press('Enter');
    expect(await input.inputValue()).toBe('Trimis în timp ce tutorele scrie');
    await waitForReplies(page, 1);
    expect((await texts(page)).slice(1)).toEqual(['Nu știu\nde unde să încep.', FIRST]);
    expect(await aiRequests()).toHaveLength(1);

    // The round is shown; rounds 2 to 4 reach the model.
    expect(await page.getByTestId('tutor-round').innerText()).toBe('Runda 2 din 4');
    for (let i = 2; i <= 4; i++) {
      await input.fill(`Răspunsul meu ${i}`);
      await input.press('Enter');
      await waitForReplies(page, i);
      if (i < 4) await until(async () => (await page.getByTestId('tutor-round').innerText()) === `Runda ${i + 1} din 4`, `round ${i + 1}`);
    }
    expect((await texts(page)).at(-1)).toBe('Ce normă crezi că se aplică faptelor din speță?');
    const reqs = await aiRequests();
    expect(reqs).toHaveLength(4);
    expect(reqs.map((r) => r.messages.filter((m) => m.role === 'user').length)).toEqual([1, 2, 3, 4]);
    expect(reqs[0].system).toContain(c!.title);

    // After the fourth reply the input gives way to the solution: no message can only get
    // the canned closing reply any more.
    const done = page.getByTestId('tutor-done');
    await done.waitFor();
    expect(await input.count()).toBe(0);
    expect(await page.getByTestId('tutor-round').count()).toBe(0);

    // Saved after each exchange: 8 messages.
    await until(async () => {
      const { data } = await admin.from('chat_conversations').select('message_count').eq('user_id', s.id).eq('case_id', c!.id);
      return data?.length === 1 && data[0].message_count === 8;
    }, 'the saved conversation');

    // The button opens "Rezolvă speța!" with the cursor in the solution.
    await done.getByRole('button', { name: 'Rezolvă speța!' }).click();
    const solution = page.getByLabel('Soluția ta');
    await solution.waitFor();
    await until(() => solution.evaluate((el) => el === document.activeElement), 'the solution focused');

    // After a reload the whole history is shown, and the rounds stay used: they are
    // counted on the server, so a reload does not start them again.
    await page.reload();
    await openBySearch(page, 'CIV2ABD', /Panourile opace/);
    await until(async () => (await bubbles(page).count()) === 9, 'the history after reload');
    await page.getByTestId('tutor-done').waitFor();
    expect(await page.getByLabel('Mesaj').count()).toBe(0);
    expect(CLOSING.test((await texts(page)).join('\n'))).toBe(false);

    // A failing send (on another case, whose rounds are not used up): the message leaves
    // the list, the error and the toast show, the text goes back into the box; nothing is saved.
    const { data: other } = await admin.from('cases').select('id').eq('case_code', 'CIV4MDL').single();
    await openBySearch(page, 'CIV4MDL', /Bicicleta electrică/);
    await until(async () => (await bubbles(page).count()) === 1 && !(await input.isDisabled()), 'the other case\'s empty conversation');
    await script([{ status: 400 }]);
    await input.fill('Aceasta va eșua');
    await input.press('Enter');
    await page.getByText('Eroare la trimiterea mesajului').waitFor();
    await page.getByRole('alert').filter({ hasText: 'Ne pare rău, a apărut o eroare. Te rugăm să încerci din nou.' }).waitFor();
    await waitForReplies(page, 0);
    expect(await texts(page)).not.toContain('Aceasta va eșua');
    expect(await input.inputValue()).toBe('Aceasta va eșua');
    const { data } = await admin.from('chat_conversations').select('message_count').eq('user_id', s.id).eq('case_id', other!.id).single();
    expect(data!.message_count).toBe(0);
  });
  await ctx.close();
});
