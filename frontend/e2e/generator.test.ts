import type { Browser, Page } from 'playwright-core';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, base, launch, login, makeStudent, step } from './support';
import { enrolAuthenticator } from './mfa-support';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const fake = process.env.FAKE_AI_URL!;
async function script(replies: object[]) {
  await fetch(`${fake}/_reset`, { method: 'POST' });
  await fetch(`${fake}/_script`, { method: 'POST', body: JSON.stringify({ replies }) });
}

const generated = {
  title: 'Paguba produsă de un câine scăpat din curte într-o seară de iarnă',
  legal_problem: 'Răspunde proprietarul animalului pentru prejudiciu? În ce condiții?',
  case_description: 'Ana are un câine care a scăpat din curte și a mușcat-o pe Maria, care a cerut despăgubiri.',
  question: 'Poate Maria obține despăgubiri de la Ana?',
  analysis_steps: [
    { step_number: 1, description: 'Pas A: calificarea faptei' },
    { step_number: 2, description: 'Pas B: condițiile răspunderii' },
    { step_number: 3, description: 'Pas C: cauzele exoneratoare' },
  ],
  hints: [
    { hint_number: 1, text: 'Indiciu 1: răspunderea pentru animale' },
    { hint_number: 2, text: 'Indiciu 2: de șters' },
    { hint_number: 3, text: 'Indiciu 3: paza juridică' },
  ],
};
const fenced = (o: object) => '```json\n' + JSON.stringify(o, null, 2) + '\n```';

// A civil category with subcategories, as the wizard lists them.
async function civilCategory() {
  const { data, error } = await admin.from('law_categories').select('name, law_subcategories(name, position)').eq('domain', 'civil').order('position');
  if (error) throw error;
  const c = (data as { name: string; law_subcategories: { name: string }[] }[]).find((x) => x.law_subcategories.length > 0)!;
  return { category: c.name, subcategory: c.law_subcategories[0].name };
}

async function toStep5(page: Page) {
  for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Continuă' }).click();
  await page.getByRole('heading', { name: 'Configurare' }).waitFor();
}

const value = (page: Page, label: string) => page.getByLabel(label, { exact: true }).inputValue();

let savedCode = '';
let student: Awaited<ReturnType<typeof makeStudent>>;

test('generator: five steps, edit, remove a hint, reorder steps, save as Neverificat; duplicate code; bad JSON', async () => {
  student = await makeStudent();
  const { category, subcategory } = await civilCategory();
  const ctx = await browser.newContext();
  const page = await login(ctx, student.email, student.password);
  await step(page, 'generator-wizard', async () => {
    await page.getByRole('link', { name: 'Generează caz' }).click();
    await page.waitForURL('**/case-generator');
    // Step clamp: Înapoi is off on the first step; nothing chosen → the domain message on generate.
    expect(await page.getByRole('button', { name: 'Înapoi' }).isDisabled()).toBe(true);
    await toStep5(page);
    await page.getByRole('button', { name: 'Generează cazul' }).click();
    await page.getByText('Domeniul nu este selectat').waitFor();
    for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Înapoi' }).click();

    // 1. Domeniu
    await page.getByRole('heading', { name: 'Domeniu' }).waitFor();
    await page.getByLabel('Drept Penal').check();
    await page.getByRole('button', { name: 'Continuă' }).click();
    // 2. Categorii (a domain change clears them)
    await page.getByRole('heading', { name: 'Categorii' }).waitFor();
    await page.getByRole('checkbox').first().check();
    await page.getByRole('button', { name: 'Înapoi' }).click();
    await page.getByRole('radio', { name: 'Drept Civil', exact: true }).check();
    await page.getByRole('button', { name: 'Continuă' }).click();
    await page.getByLabel(category, { exact: true }).waitFor();
    expect(await page.getByRole('checkbox', { checked: true }).count()).toBe(0);
    await page.getByLabel(category, { exact: true }).check();
    await page.getByRole('button', { name: 'Continuă' }).click();
    // 3. Articole: empty, formatted, duplicate, range
    await page.getByRole('heading', { name: 'Articole' }).waitFor();
    await page.getByRole('button', { name: 'Adaugă articolul' }).click();
    await page.getByText('Introdu numărul articolului').waitFor();
    await page.getByLabel('Numărul articolului').fill('Art. abc');
    await page.getByRole('button', { name: 'Adaugă articolul' }).click();
    await page.getByText(/Scrie numărul articolului, de exemplu 1357/).waitFor();
    if ((await page.locator('.article-list li').count()) !== 0) throw new Error('"Art. abc" was added');
    await page.getByLabel('Numărul articolului').fill('1357 al. 1');
    await page.getByRole('button', { name: 'Adaugă articolul' }).click();
    await page.getByText('Art. 1357 alin. (1) C.civ.').waitFor();
    await page.getByLabel('Numărul articolului').fill('art. 1357 alin. (1)');
    await page.getByLabel('Numărul articolului').press('Enter');
    await page.getByText('Acest articol a fost deja adăugat').waitFor();
    await page.getByLabel('Numărul articolului').fill('1349-1351');
    await page.getByRole('button', { name: 'Adaugă articolul' }).click();
    await page.getByText('Art. 1349-1351 C.civ.').waitFor();
    await page.getByRole('button', { name: 'Continuă' }).click();
    // 4. Context
    await page.getByLabel('Descrierea temei').fill('Răspunderea pentru animale');
    await page.getByLabel('Focus specific').fill('Paza juridică a animalului');
    await page.getByRole('button', { name: 'Continuă' }).click();
    // 5. Configurare: the default difficulty is mediu
    expect(await page.getByLabel('Dificultate').inputValue()).toBe('mediu');
    await page.getByLabel('Dificultate').selectOption('dificil');
    await page.getByLabel('Săptămâna').selectOption({ label: 'Săptămâna 3' });
    await page.getByLabel('Subcategorie', { exact: true }).selectOption(subcategory);
    expect(await page.getByRole('button', { name: 'Continuă' }).count()).toBe(0);

    await script([{ text: fenced(generated), delay_ms: 1500 }]);
    await page.getByRole('button', { name: 'Generează cazul' }).click();
    await page.getByRole('progressbar', { name: 'Progresul generării' }).waitFor();
    await page.getByText('Generarea durează aproximativ 10-30 de secunde.').waitFor();
    await page.getByRole('heading', { name: 'Editează și salvează' }).waitFor({ timeout: 60_000 });
    // What the browser sent: the choices only; the server put its own prompt.
    const reqs = (await (await fetch(`${fake}/_requests`)).json()) as { system: string; messages: { content: string }[]; temperature: number }[];
    expect(reqs).toHaveLength(1);
    expect(reqs[0].system).toContain('case_description');
    const sent = JSON.parse(reqs[0].messages[0].content);
    expect(sent).toMatchObject({ domeniu: 'Drept Civil', categorii: [category], articole: ['Art. 1357 alin. (1) C.civ.', 'Art. 1349-1351 C.civ.'], dificultate: 'dificil', saptamana: 3, subcategorie: subcategory });

    // The edit screen: code CIV + week + 3 letters, the AI's fields, our choices.
    savedCode = await value(page, 'Cod caz');
    expect(savedCode).toMatch(/^CIV3[A-Z]{3}$/);
    expect(await value(page, 'Titlu')).toBe(generated.title);
    expect(await value(page, 'Subcategorie')).toBe(subcategory);
    expect(await value(page, 'Categorie')).toBe(category);
    // Validation messages joined by '. '.
    await page.getByLabel('Titlu', { exact: true }).fill('');
    await page.getByLabel('Întrebare', { exact: true }).fill(' ');
    await page.getByRole('button', { name: 'Salvează cazul' }).click();
    await page.getByText('Titlul este obligatoriu. Întrebarea este obligatorie', { exact: true }).waitFor();
    await page.getByLabel('Titlu', { exact: true }).fill('Câinele scăpat din curte');
    await page.getByLabel('Întrebare', { exact: true }).fill(generated.question);
    // Remove the second hint; move step 3 up (keyboard: focus stays on the moved step's button).
    await page.getByRole('button', { name: 'Șterge indiciul 2' }).click();
    expect(await value(page, 'Indiciul 2')).toBe('Indiciu 3: paza juridică');
    expect(await page.getByLabel('Indiciul 3').count()).toBe(0);
    await page.getByRole('button', { name: 'Mută pasul 3 în sus' }).focus();
    await page.keyboard.press('Enter');
    expect(await value(page, 'Pasul 2')).toBe('Pas C: cauzele exoneratoare');
    expect(await value(page, 'Pasul 3')).toBe('Pas B: condițiile răspunderii');
    await page.getByRole('button', { name: 'Salvează cazul' }).click();
    await page.getByRole('heading', { name: 'Cazul a fost salvat' }).waitFor();
    expect(await page.getByTestId('saved-code').textContent()).toBe(savedCode);
    await page.getByText('Neverificat', { exact: true }).waitFor();
  });

  // What was stored: unverified, level and week, steps and hints renumbered in the new order.
  const { data: row } = await admin.from('cases').select('id, title, level, week_number, verified, user_id, category, subcategory').eq('case_code', savedCode).single();
  expect(row).toMatchObject({ title: 'Câinele scăpat din curte', level: 'Dificil', week_number: 3, verified: false, user_id: student.id, category, subcategory });
  const { data: steps } = await admin.from('case_analysis_steps').select('step_number, step_description').eq('case_id', row!.id).order('step_number');
  expect(steps!.map((s) => `${s.step_number}:${s.step_description.slice(0, 5)}`)).toEqual(['1:Pas A', '2:Pas C', '3:Pas B']);
  const { data: hints } = await admin.from('case_hints').select('hint_number, hint_text').eq('case_id', row!.id).order('hint_number');
  expect(hints!.map((h) => `${h.hint_number}:${h.hint_text.slice(0, 9)}`)).toEqual(['1:Indiciu 1', '2:Indiciu 3']);
  const { data: arts } = await admin.from('case_articles').select('article_reference').eq('case_id', row!.id);
  expect(arts!.map((a) => a.article_reference).sort()).toEqual(['Art. 1349-1351 C.civ.', 'Art. 1357 alin. (1) C.civ.']);

  await step(page, 'generator-duplicate', async () => {
    await page.getByRole('button', { name: 'Generează alt caz' }).click();
    await page.getByRole('heading', { name: 'Domeniu' }).waitFor();
    await page.getByRole('radio', { name: 'Drept Civil', exact: true }).check();
    await toStep5(page);
    await script([{ text: JSON.stringify(generated) }, { text: JSON.stringify({ category, subcategory }) }]);
    await page.getByRole('button', { name: 'Generează cazul' }).click();
    await page.getByRole('heading', { name: 'Editează și salvează' }).waitFor({ timeout: 60_000 });
    // No subcategory chosen: the classification call filled it.
    expect(await value(page, 'Subcategorie')).toBe(subcategory);
    // The saved code names week 3: the same week here, so only the duplicate is refused.
    await page.getByLabel('Săptămâna', { exact: true }).selectOption({ label: 'Săptămâna 3' });
    await page.getByLabel('Cod caz').fill(' ' + savedCode.toLowerCase() + ' ');
    await page.getByRole('button', { name: 'Salvează cazul' }).click();
    await page.getByText(`Codul cazului "${savedCode}" există deja în baza de date. Te rog alege un alt cod.`).waitFor();
  });

  await step(page, 'generator-bad-json', async () => {
    await page.getByRole('button', { name: 'Anulează' }).click();
    await page.getByRole('heading', { name: 'Domeniu' }).waitFor();
    await page.getByLabel('Drept Constituțional').check();
    await toStep5(page);
    await script([{ text: 'Iată cazul: {"title": "fără sfârșit", ' }]);
    await page.getByRole('button', { name: 'Generează cazul' }).click();
    await page.getByText('Eroare la parsarea răspunsului AI. Încearcă din nou.').waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: 'Configurare' }).waitFor();
    // An upstream failure gives the other message.
    await script([{ status: 400 }]);
    await page.getByRole('button', { name: 'Generează cazul' }).click();
    await page.getByText('Eroare la generarea cazului. Verifică conexiunea și încearcă din nou.').waitFor({ timeout: 60_000 });
  });

  await step(page, 'generator-progress-page', async () => {
    await page.goto(base + '/reporting');
    const item = page.getByTestId('generated-case').filter({ hasText: savedCode });
    await item.getByText('Neverificat').waitFor();
    // The review page is not for students.
    await page.goto(base + '/review');
    await page.getByText('You do not have permission to access this page.').waitFor();
  });
  await ctx.close();

  // A student calling the review RPCs by hand is refused by the database.
  const sb = createClient(base, process.env.ANON_KEY!, { auth: { persistSession: false, autoRefreshToken: false } });
  const { error: signInErr } = await sb.auth.signInWithPassword({ email: student.email, password: student.password });
  expect(signInErr).toBeNull();
  const v = await sb.rpc('review_verify_case', { p_case_id: row!.id });
  expect(v.error?.code).toBe('42501');
  const r = await sb.rpc('review_reject_case', { p_case_id: row!.id, p_reason: 'eu însumi' });
  expect(r.error?.code).toBe('42501');
  const q = await sb.rpc('review_queue');
  expect(q.error?.code).toBe('42501');
  const direct = await sb.from('cases').update({ verified: true }).eq('id', row!.id).select();
  expect(direct.data ?? []).toHaveLength(0);
  const { data: still } = await admin.from('cases').select('verified').eq('id', row!.id).single();
  expect(still!.verified).toBe(false);
});

test('review queue: a moderator checks the articles and verifies; the student sees it verified', async () => {
  expect(savedCode).not.toBe('');
  const mod = await makeStudent();
  const { error } = await admin.from('user_profiles').update({ role: 'moderator' }).eq('id', mod.id);
  if (error) throw error;
  const ctx = await browser.newContext();
  const page = await login(ctx, mod.email, mod.password);
  await step(page, 'review-verify', async () => {
    await page.getByRole('link', { name: 'Verificare cazuri' }).click();
    await page.waitForURL('**/review');
    const row = page.getByRole('row').filter({ hasText: savedCode });
    await row.getByText(student.username).waitFor();
    await page.getByRole('button', { name: `Deschide ${savedCode}` }).click();
    await page.getByText(`Autor: ${student.username}`).waitFor();
    // Cited articles resolved to the code's text; an unknown one flagged.
    await page.locator('summary', { hasText: 'Art. 1357' }).waitFor();
    await page.locator('summary', { hasText: 'Art. 1350' }).waitFor();
    // Past the code's end: refused (walkthrough 3, bug 20); in range but absent: flagged.
    await page.getByLabel('Adaugă articol').fill('99999');
    await page.getByRole('button', { name: 'Adaugă', exact: true }).click();
    await page.getByText('Codul civil are articolele 1-2664').waitFor();
    await page.getByLabel('Adaugă articol').fill('1357^9');
    await page.getByRole('button', { name: 'Adaugă', exact: true }).click();
    await page.getByText('Articol negăsit în cod: 1357^9').waitFor();
    await page.getByRole('button', { name: 'Șterge Art. 1357^9 C.civ.' }).click();
    // An edit by the moderator, then verify.
    await page.getByLabel('Titlu', { exact: true }).fill('Câinele scăpat din curte (revizuit)');
    await page.getByRole('button', { name: 'Marchează ca verificat' }).click();
    await page.getByText('Caz verificat').waitFor();
    await page.getByRole('button', { name: `Deschide ${savedCode}` }).waitFor({ state: 'detached' });
  });
  await ctx.close();
  const { data: c } = await admin.from('cases').select('id, title, verified').eq('case_code', savedCode).single();
  expect(c).toMatchObject({ title: 'Câinele scăpat din curte (revizuit)', verified: true });
  const { data: audit } = await admin.from('case_audit').select('action, actor_id').eq('case_id', c!.id).order('id');
  expect(audit!.map((a) => a.action)).toEqual(['edit', 'verify']);
  expect(audit!.every((a) => a.actor_id === mod.id)).toBe(true);

  const sctx = await browser.newContext();
  const spage = await login(sctx, student.email, student.password);
  await step(spage, 'review-student-sees-verified', async () => {
    await spage.getByLabel('Caută cazuri după cod sau titlu').fill(savedCode);
    const option = spage.getByRole('option').filter({ hasText: savedCode });
    await option.waitFor();
    expect(await option.textContent()).toContain('Verificat');
    await spage.keyboard.press('Enter');
    // The case header's badge (the tree row marks it too, with an icon titled "Verificat").
    await spage.locator('article.case header .badge.verified').getByText('Verificat', { exact: true }).waitFor();
    await spage.goto(base + '/reporting');
    await spage.getByTestId('generated-case').filter({ hasText: savedCode }).getByText('Verificat', { exact: true }).waitFor();
  });
  await sctx.close();
});

test('review queue: an admin rejects with a reason; the author reads it on My Progress', async () => {
  const author = student ?? (await makeStudent());
  const code = `PEN4R${Date.now() % 100000}`;
  const { data: c, error } = await admin
    .from('cases')
    .insert({ user_id: author.id, case_code: code, title: 'Furt dintr-un magazin', domain: 'penal', verified: false, legal_problem: 'p', case_description: 'd', question: 'q' })
    .select('id')
    .single();
  if (error) throw error;
  // An admin this time, reaching the queue from the admin page's Case Management card.
  const mod = await makeStudent('admin');
  const ctx = await browser.newContext();
  const page = await login(ctx, mod.email, mod.password);
  await step(page, 'review-reject', async () => {
    await page.goto(base + '/admin');
    await enrolAuthenticator(page); // MFA_REQUIRED_ROLES: an admin's first visit (mfa.test.ts)
    await page.getByRole('link', { name: 'Cazuri de verificat' }).click();
    await page.waitForURL('**/review');
    await page.getByRole('button', { name: `Deschide ${code}` }).click();
    await page.getByRole('button', { name: 'Respinge cazul' }).click();
    await page.getByText('Motivul respingerii este obligatoriu').waitFor();
    await page.getByLabel('Motivul respingerii').fill('Faptele nu susțin întrebarea; lipsesc pașii de analiză.');
    await page.getByRole('button', { name: 'Respinge cazul' }).click();
    await page.getByText('Caz respins').waitFor();
    await page.getByRole('button', { name: `Deschide ${code}` }).waitFor({ state: 'detached' });
  });
  await ctx.close();
  const { data: audit } = await admin.from('case_audit').select('action, actor_id, new_values').eq('case_id', c.id);
  expect(audit).toEqual([{ action: 'reject', actor_id: mod.id, new_values: { rejection_reason: 'Faptele nu susțin întrebarea; lipsesc pașii de analiză.' } }]);

  const sctx = await browser.newContext();
  const spage = await login(sctx, author.email, author.password);
  await step(spage, 'review-author-sees-rejection', async () => {
    await spage.goto(base + '/reporting');
    const item = spage.getByTestId('generated-case').filter({ hasText: code });
    await item.getByText('Respins', { exact: true }).waitFor();
    await item.getByText('Motivul respingerii: Faptele nu susțin întrebarea; lipsesc pașii de analiză.').waitFor();
  });
  await sctx.close();
});
