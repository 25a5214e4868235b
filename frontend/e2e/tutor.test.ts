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

    // Rounds 2 to 4 reach the model; the 5th gets the fixed closing message.
    for (let i = 2; i <= 5; i++) {
      await input.fill(`Răspunsul meu ${i}`);
      await input.press('Enter');
      await waitForReplies(page, i);
    }
    const all = await texts(page);
    expect(all.at(-1)).toMatch(CLOSING);
    expect(all.at(-3)).toBe('Ce normă crezi că se aplică faptelor din speță?');
    const reqs = await aiRequests();
    expect(reqs).toHaveLength(4); // the closing message does not call the model
    expect(reqs.map((r) => r.messages.filter((m) => m.role === 'user').length)).toEqual([1, 2, 3, 4]);
    expect(reqs[0].system).toContain(c!.title);

    // Saved after each exchange: 10 messages.
    await until(async () => {
      const { data } = await admin.from('chat_conversations').select('message_count').eq('user_id', s.id).eq('case_id', c!.id);
      return data?.length === 1 && data[0].message_count === 10;
    }, 'the saved conversation');

    // After a reload the whole history is shown. The rounds are counted on the server from
    // the stored conversation, so a reload does not start them again: the closing message,
    // without the model.
    await page.reload();
    await openBySearch(page, 'CIV2ABD', /Panourile opace/);
    await until(async () => (await bubbles(page).count()) === 11, 'the history after reload');
    expect((await texts(page)).at(-1)).toMatch(CLOSING);
    await resetAI();
    await input.fill('O întrebare după reîncărcare');
    await input.press('Enter');
    await waitForReplies(page, 6);
    expect(await aiRequests()).toHaveLength(0);
    expect((await texts(page)).at(-1)).toMatch(CLOSING);
    await until(async () => {
      const { data } = await admin.from('chat_conversations').select('message_count').eq('user_id', s.id).eq('case_id', c!.id);
      return data?.length === 1 && data[0].message_count === 12;
    }, 'the saved conversation after reload');

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
