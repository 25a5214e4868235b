import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, base, gradeReply, launch, login, makeStudent, step, unique } from './support';
import { resetAI, script, until } from './study-support';

// Issue 15 in the browser: a blocked student asks for a human check and sees a moderator's
// decision live; revise and resubmit shows the per-criterion change; My Progress groups
// attempts by case and shows the criterion view; strictness beside every score.

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

// A block needs a chat assistant's trace quoted from the student's text (the server checks the quote).
const FAILED = (why: string, quote: string) => ({ text: JSON.stringify({ indicii: [{ tip: 'A', citat: quote }], decision: 'FAILED', justification: why }) });
const PASSED = { text: '{"probability": 8, "decision": "PASSED", "justification": "Ezitări și exemple proprii."}' };

async function makeCase(prefix: string) {
  const code = unique(prefix).slice(0, 12).toUpperCase();
  const { error } = await admin.from('cases').insert({ case_code: code, title: `Caz 1: ${prefix} răspunderea vecinului`, domain: 'civil', verified: true, category: null });
  if (error) throw error;
  return code;
}

async function openCase(page: Page, code: string) {
  await page.getByLabel('Caută cazuri după cod sau titlu').fill(code);
  await page.getByRole('option').first().waitFor();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: /răspunderea vecinului/ }).waitFor();
  await page.getByText('Rezolvă speța!').click();
}

async function makeModerator() {
  const m = await makeStudent();
  const { error } = await admin.from('user_profiles').update({ role: 'moderator' }).eq('id', m.id);
  if (error) throw error;
  return m;
}

test('appeal: blocked → human check → a moderator releases → graded, seen live; a confirmed block shows its reason', async () => {
  await resetAI();
  const [s, m, code] = await Promise.all([makeStudent(), makeModerator(), makeCase('APL')]);
  const sctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const student = await login(sctx, s.email, s.password);
  const mctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const mod = await login(mctx, m.email, m.password);
  const typed = 'Vecinul răspunde pentru fapta proprie. ';
  const pasted = 'Art. 1357 C.civ. cere fapta ilicită, prejudiciul, legătura de cauzalitate și vinovăția; toate sunt întrunite aici.';

  await step(student, 'appeal-blocked', async () => {
    await openCase(student, code);
    const area = student.getByLabel('Soluția ta');
    await area.click();
    await area.pressSequentially(typed);
    // A paste: the editor counts its characters, not its text.
    await area.evaluate((el) => el.dispatchEvent(new Event('paste', { bubbles: true })));
    await student.keyboard.insertText(pasted);
    await script([FAILED('Formulă de asistent.', 'Art. 1357 C.civ. cere fapta ilicită')]);
    await student.getByRole('button', { name: 'Evaluează Soluția' }).click();
    await student.getByText(/miros de algoritm/).waitFor();
    await student.getByRole('button', { name: 'Solicită verificare umană' }).click();
    // Subscribed to the decision (data-live) before the moderator acts.
    await student.locator('[data-testid="appeal-status"][data-live="on"]').waitFor();
    expect(await student.getByLabel('Soluția ta').getAttribute('readonly')).not.toBeNull();
  });

  await step(mod, 'appeal-moderator', async () => {
    await mod.goto(base + '/review');
    await mod.getByRole('heading', { name: 'Verificări umane solicitate' }).waitFor();
    await mod.getByRole('button', { name: new RegExp(`Deschide cererea pentru ${code} de la ${s.username}`) }).click();
    await mod.getByText(/„Art\. 1357 C\.civ\. cere fapta ilicită” \(formulă de asistent conversațional\)/).waitFor();
    expect(await mod.locator('pre.submission-text').innerText()).toBe(typed + pasted);
    const signals = mod.getByRole('table', { name: 'Semnale de redactare' });
    expect(await signals.getByRole('row', { name: /Caractere tastate/ }).innerText()).toContain(String(typed.length));
    expect(await signals.getByRole('row', { name: /Caractere lipite/ }).innerText()).toContain(String(pasted.length));
    expect(await signals.getByRole('row', { name: /^Lipiri/ }).innerText()).toMatch(/\b1\b/);
    await mod.getByRole('button', { name: 'Eliberează pentru evaluare' }).click();
    // Released, the request leaves the queue (other tests' requests may still be in it).
    await mod.getByRole('button', { name: new RegExp(`Deschide cererea pentru ${code} de la ${s.username}`) }).waitFor({ state: 'detached' });
  });

  await step(student, 'appeal-graded-live', async () => {
    // No reload: the release arrives over realtime and the grading starts by itself.
    const card = student.getByRole('region', { name: 'Evaluare Completă' });
    await card.waitFor({ timeout: 20_000 });
    await card.getByText('78/100 · Bine').waitFor();
    await card.getByText('Exigență Mediu (3)').waitFor();
  });

  await step(student, 'appeal-confirmed-live', async () => {
    await student.getByRole('button', { name: 'Resetează' }).click();
    await student.getByLabel('Soluția ta').fill('Un al doilea text, tot al meu.');
    await script([FAILED('Formulă de asistent.', 'Un al doilea text, tot al meu')]);
    await student.getByRole('button', { name: 'Evaluează Soluția' }).click();
    await student.getByRole('button', { name: 'Solicită verificare umană' }).click();
    await student.locator('[data-testid="appeal-status"][data-live="on"]').waitFor();
    await mod.reload();
    await mod.getByRole('button', { name: new RegExp(`Deschide cererea pentru ${code}`) }).click();
    await mod.getByRole('button', { name: 'Confirmă blocarea' }).click();
    await mod.getByText('Motivul confirmării este obligatoriu').waitFor();
    await mod.getByLabel('Motivul confirmării blocării').fill('Textul nu are legătură cu faptele speței.');
    await mod.getByRole('button', { name: 'Confirmă blocarea' }).click();
    await student.getByText('Un moderator a confirmat blocarea. Motiv: Textul nu are legătură cu faptele speței.').waitFor();
    // Coming back to the case later shows the outcome again, with the text under appeal.
    await student.reload();
    await openCase(student, code);
    await student.getByText('Un moderator a confirmat blocarea. Motiv: Textul nu are legătură cu faptele speței.').waitFor();
    expect(await student.getByLabel('Soluția ta').inputValue()).toBe('Un al doilea text, tot al meu.');
  });

  await step(student, 'appeal-progress', async () => {
    await student.getByRole('link', { name: 'Progress' }).first().click();
    await student.waitForURL('**/reporting');
    const group = student.getByTestId('case-attempts').filter({ hasText: code });
    await group.waitFor();
    const latest = group.getByTestId('submission').first();
    await until(async () => (await latest.innerText()).includes('blocare confirmată'), 'the confirmed block in My Progress');
    expect(await latest.innerText()).toContain('Textul nu are legătură cu faptele speței.');
    await group.locator('details.earlier > summary').click();
    const earlier = group.locator('details.earlier').getByTestId('submission');
    expect(await earlier.innerText()).toMatch(new RegExp(`${code} · 78/100 · Exigență Mediu \\(3\\)`));
    expect(await earlier.innerText()).toContain('Verificare umană: eliberată pentru evaluare');
  });
  await sctx.close();
  await mctx.close();
}, 240_000);

test('revise and resubmit: per-criterion change; My Progress groups by case with the criterion view', async () => {
  await resetAI();
  const [s, code] = await Promise.all([makeStudent(), makeCase('REV')]);
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await login(ctx, s.email, s.password);
  const first = [5, 7, 4, 6, 8, 4, 8, 17, 10, 9]; // 78
  const second = [5, 7, 4, 6, 8, 4, 8, 20, 10, 8]; // 80: +3 at 2.2.1, −1 at 2.2.3

  await step(page, 'revise', async () => {
    await openCase(page, code);
    const area = page.getByLabel('Soluția ta');
    const text = 'Vecinul a ridicat panourile ca să îl șicaneze pe reclamant: abuz de drept, art. 15 C.civ.';
    await area.fill(text);
    await page.getByRole('radio', { name: /Greu/ }).check();
    await script([PASSED, ...gradeReply(first)]);
    await page.getByRole('button', { name: 'Evaluează Soluția' }).click();
    const card = page.getByRole('region', { name: 'Evaluare Completă' });
    await card.getByText('78/100 · Bine').waitFor({ timeout: 60_000 });
    await card.getByText('Exigență Greu (5)').waitFor();
    expect(await card.getByTestId('total-delta').count()).toBe(0);
    await card.getByRole('button', { name: 'Revizuiește soluția' }).click();
    // The same text, open for editing, with the note that it is a revision.
    expect(await area.inputValue()).toBe(text);
    await page.getByText(/Revizuiești soluția evaluată cu 78\/100/).waitFor();
    await area.press('End');
    await area.pressSequentially(' Concluzie: vecinul răspunde.');
    await script([PASSED, ...gradeReply(second)]);
    await page.getByRole('button', { name: 'Evaluează Soluția' }).click();
    await card.getByText('80/100 · Foarte bine').waitFor({ timeout: 60_000 });
    expect(await card.getByTestId('total-delta').innerText()).toBe('Total: +2 (78 → 80)');
    expect(await card.getByTestId('criterion-delta').allInnerTexts()).toEqual(['+3 la Premisa majoră', '−1 la Concluzie']);
  });

  await step(page, 'revise-progress', async () => {
    await page.getByRole('link', { name: 'Progress' }).first().click();
    await page.waitForURL('**/reporting');
    const group = page.getByTestId('case-attempts').filter({ hasText: code });
    await group.waitFor();
    expect(await page.getByTestId('case-attempts').count()).toBe(1);
    expect(await group.getByTestId('submission').first().innerText()).toMatch(new RegExp(`${code} · 80/100 · Exigență Greu \\(5\\)`));
    expect(await group.locator('details.earlier').getAttribute('open')).toBeNull();
    await group.getByText('O încercare anterioară').click();
    expect(await group.locator('details.earlier').getByTestId('submission').innerText()).toMatch(new RegExp(`${code} · 78/100 · Exigență Greu \\(5\\)`));
    // The criterion view: weakest first (2.2.3: 17/30 = 57 %, then 2.2.2: 20/30 = 67 %).
    const rows = page.getByTestId('criterion-share');
    await until(async () => (await rows.count()) === 10, 'ten criteria');
    expect(await rows.nth(0).innerText()).toMatch(/2\.2\.3 Concluzie\s+57%/);
    expect(await rows.nth(1).innerText()).toMatch(/2\.2\.2 Premisa minoră\s+67%/);
    expect(await rows.nth(9).innerText()).toMatch(/1\.1 Citirea/);
    // Over time, with the strictness of each point.
    expect(await page.getByRole('img', { name: '2.2.1 Premisa majoră în timp: 85% (Greu), 100% (Greu)' }).count()).toBe(1);
    const chart = page.getByRole('img', { name: /Evoluția punctajelor: .*78 \(Greu\), .*80 \(Greu\)/ });
    expect(await chart.count()).toBe(1);
    // Every date label lies inside the chart (the last one used to be cut off at the right edge).
    const overflow = await chart.evaluate((svg) => {
      const box = svg.getBoundingClientRect();
      return [...svg.querySelectorAll('text')].filter((t) => {
        const r = t.getBoundingClientRect();
        return r.left < box.left - 0.5 || r.right > box.right + 0.5;
      }).map((t) => t.textContent);
    });
    expect(overflow).toEqual([]);
  });
  await ctx.close();
}, 180_000);

test('model answer: generated, edited and saved with the case; the moderator reads and edits it in review', async () => {
  await resetAI();
  const [s, m] = await Promise.all([makeStudent(), makeModerator()]);
  const answer = 'Introducere: Ion a luat bunul Mariei. Premisa majoră: art. 228 C.pen. Premisa minoră: faptele. Concluzie: furt.';
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await login(ctx, s.email, s.password);
  let code = '';
  await step(page, 'model-answer-generator', async () => {
    await page.getByRole('link', { name: 'Generează caz' }).click();
    await page.getByRole('heading', { name: 'Domeniu' }).waitFor();
    await page.getByLabel('Drept Penal').check();
    for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Continuă' }).click();
    await page.getByRole('heading', { name: 'Configurare' }).waitFor();
    await script([{ text: JSON.stringify({ title: 'Furtul unei biciclete din curtea vecinului într-o noapte de vară', legal_problem: 'Este furt?', case_description: 'Ion a luat bicicleta Mariei.', question: 'Ce infracțiune?', analysis_steps: [{ step_number: 1, description: 'Pas' }], hints: [{ hint_number: 1, text: 'Indiciu' }], model_answer: answer }) }]);
    await page.getByRole('button', { name: 'Generează cazul' }).click();
    await page.getByRole('heading', { name: 'Editează și salvează' }).waitFor({ timeout: 60_000 });
    const field = page.getByLabel('Soluția model');
    expect(await field.inputValue()).toBe(answer);
    await field.fill(answer + ' Pedeapsa: art. 228 alin. (1).');
    code = await page.getByLabel('Cod caz', { exact: true }).inputValue();
    await page.getByRole('button', { name: 'Salvează cazul' }).click();
    await page.getByTestId('saved-code').waitFor();
  });
  const { data: c } = await admin.from('cases').select('id').eq('case_code', code).single();
  const stored = async () => (await admin.from('case_model_answers').select('model_answer').eq('case_id', c!.id).maybeSingle()).data?.model_answer;
  expect(await stored()).toBe(answer + ' Pedeapsa: art. 228 alin. (1).');

  const mctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const mod = await login(mctx, m.email, m.password);
  await step(mod, 'model-answer-review', async () => {
    await mod.goto(base + '/review');
    await mod.getByRole('button', { name: `Deschide ${code}` }).click();
    const field = mod.getByLabel('Soluția model');
    await field.waitFor();
    expect(await field.inputValue()).toBe(answer + ' Pedeapsa: art. 228 alin. (1).');
    await field.fill('Concluzie revizuită de moderator: furt simplu.');
    await mod.getByRole('button', { name: 'Salvează modificările' }).click();
    await mod.getByText('Modificările au fost salvate').waitFor();
  });
  expect(await stored()).toBe('Concluzie revizuită de moderator: furt simplu.');
  await ctx.close();
  await mctx.close();
}, 180_000);
