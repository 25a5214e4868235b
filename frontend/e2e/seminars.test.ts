import type { Browser, Page } from 'playwright-core';
import fs from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, gradeReply, launch, login, makeStudent, step, unique } from './support';
import { resetAI, script } from './study-support';

// Issue 30 in the browser: an assistant creates a group and an assignment; two students join
// by link (seeing what they agree to), one hands in on time and one late; the assistant's
// table follows it live; the assistant corrects a criterion with a comment and the student
// sees it without reloading; the CSV export opens in Romanian Excel (BOM, ";", diacritics).

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const PASSED = { text: '{"probability": 8, "decision": "PASSED", "justification": "Ezitări și exemple proprii."}' };

const ON_TIME = [5, 7, 4, 6, 8, 4, 8, 17, 10, 9]; // 78
const LATE = [4, 6, 3, 5, 7, 3, 7, 12, 9, 8]; // 64

async function makeCase(prefix: string, rejected = false) {
  const code = unique(prefix).slice(0, 12).toUpperCase();
  const { data, error } = await admin
    .from('cases')
    .insert({ case_code: code, title: `Caz 1: ${prefix} vecinul și panourile`, domain: 'civil', verified: !rejected, category: null, ...(rejected ? { rejection_reason: 'Fapte incomplete.' } : {}) })
    .select('id')
    .single();
  if (error) throw error;
  return { code, id: data.id as string };
}

async function makeModerator() {
  const m = await makeStudent();
  const { error } = await admin.from('user_profiles').update({ role: 'moderator' }).eq('id', m.id);
  if (error) throw error;
  return m;
}

// Types into the assignment form's case search and picks the case with this code.
async function pickCase(page: Page, code: string) {
  await page.getByLabel('Caută cazul (cod sau titlu)').fill(code);
  await page.getByRole('list', { name: 'Cazuri găsite' }).getByRole('button', { name: new RegExp(code) }).click();
  await page.getByTestId('chosen-case').filter({ hasText: code }).waitFor();
}

// The student's side: the case of the assignment from the dashboard's "Teme", then a
// solution handed in and graded (scripted AI).
async function handIn(page: Page, code: string, text: string, scores: number[], score: string) {
  await page.goto(new URL('/dashboard', page.url()).href);
  const tema = page.getByTestId('tema').filter({ hasText: 'răspunderea vecinului' });
  await tema.getByRole('button', { name: `Deschide speța ${code}` }).click();
  await page.getByRole('heading', { level: 1, name: /vecinul și panourile/ }).waitFor();
  await page.getByText('Rezolvă speța!').click();
  const banner = page.getByTestId('tema-banner');
  await banner.getByText('Temă: Tema 1: răspunderea vecinului — ședința a doua').waitFor();
  // The strictness is the assistant's: Greu (5), not the student's to change.
  const greu = page.getByRole('radio', { name: /Greu/ });
  await greu.waitFor();
  if (!(await greu.isChecked()) || !(await greu.isDisabled())) throw new Error('the assignment strictness is not fixed');
  await page.getByLabel('Soluția ta').fill(text);
  await script([PASSED, ...gradeReply(scores)]);
  await page.getByRole('button', { name: 'Evaluează Soluția' }).click();
  await page.getByRole('region', { name: 'Evaluare Completă' }).getByText(score).waitFor({ timeout: 60_000 });
  await banner.locator('[data-testid="tema-state"]', { hasText: 'nota AI' }).waitFor();
}

test('seminar: group, assignment, two students by link (on time, late), live table, corrected grade seen live, CSV', async () => {
  await resetAI();
  const [m, s1, s2, kase, rejected] = await Promise.all([makeModerator(), makeStudent(), makeStudent(), makeCase('SEM'), makeCase('REJ', true)]);
  const mctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const staff = await login(mctx, m.email, m.password);
  let link = '';
  let groupUrl = '';

  await step(staff, 'seminar-create-group', async () => {
    await staff.getByRole('link', { name: 'Seminar' }).click();
    await staff.getByRole('heading', { name: 'Grupă nouă' }).waitFor();
    await staff.getByLabel('Numele grupei').fill('Drept civil, grupa 104 — Țăndărei');
    await staff.getByLabel('Facultatea').selectOption('UB');
    await staff.getByLabel('Semestrul').selectOption('2');
    await staff.getByRole('button', { name: 'Creează grupa' }).click();
    await staff.getByRole('heading', { level: 1, name: 'Drept civil, grupa 104 — Țăndărei' }).waitFor();
    groupUrl = staff.url();
    link = (await staff.getByTestId('join-link').innerText()).trim();
    expect(link).toMatch(/\/join\/[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/);
  });

  await step(staff, 'seminar-edit-group', async () => {
    await staff.getByText('Editează grupa').click();
    const form = staff.getByRole('form', { name: 'Editează grupa' });
    await form.getByLabel('Numele grupei').fill('G');
    await form.getByRole('button', { name: 'Salvează grupa' }).click();
    await form.getByText('Numele grupei trebuie să aibă între 2 și 120 de caractere.').waitFor();
    await form.getByLabel('Numele grupei').fill('Drept civil, grupa 104 — Țăndărei');
    await form.getByLabel('Semestrul').selectOption('1');
    await form.getByRole('button', { name: 'Salvează grupa' }).click();
    await staff.locator('.seminar-head > p.muted').getByText(/^\d{4}-\d{4} · semestrul 1$/).waitFor();
  });

  await step(staff, 'seminar-create-assignment', async () => {
    await staff.getByText('Temă nouă').click();
    const form = staff.getByRole('form', { name: 'Temă nouă' });
    // A deadline in the past is refused with the server's sentence.
    await pickCase(staff, kase.code);
    await form.getByLabel('Titlul temei').fill('Tema 1: răspunderea vecinului — ședința a doua');
    await form.getByLabel('Termen-limită (ora României)').fill('2020-03-01T18:00');
    await form.getByRole('button', { name: 'Creează tema' }).click();
    await form.getByText('Termenul-limită este în trecut.').waitFor();
    // So is a case rejected at review.
    await pickCase(staff, rejected.code);
    await form.getByLabel('Termen-limită (ora României)').fill('2099-03-01T18:00');
    await form.getByRole('button', { name: 'Creează tema' }).click();
    await form.getByText('Cazul a fost respins la verificare și nu poate fi dat ca temă.').waitFor();
    await pickCase(staff, kase.code);
    await form.getByLabel('Exigența corectorului').selectOption('5');
    await form.getByLabel('Revizuiri care contează').selectOption('1');
    await form.getByLabel('Studenții pot folosi tutorele AI').uncheck();
    await form.getByRole('button', { name: 'Creează tema' }).click();
    await staff.getByTestId('assignment').filter({ hasText: 'Tema 1: răspunderea vecinului — ședința a doua' }).waitFor();
    expect(await staff.getByTestId('assignment').innerText()).toMatch(/Exigență Greu \(5\).*tutore interzis.*o revizuire/s);
  });

  const c1 = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const p1 = await login(c1, s1.email, s1.password);
  // The second student opens the link signed out, on a phone: signing in leads back to it.
  const c2 = await browser.newContext({ viewport: { width: 390, height: 844 } });
  c2.setDefaultTimeout(60_000);
  const p2 = await c2.newPage();
  await step(p2, 'seminar-link-signed-out', async () => {
    await p2.goto(link);
    await p2.waitForURL('**/login');
    await p2.getByLabel('Email').fill(s2.email);
    await p2.getByLabel('Parolă').fill(s2.password);
    await p2.getByRole('button', { name: 'Conectare' }).click();
    await p2.waitForURL('**/join/*');
  });

  for (const [page, name] of [[p1, 'one'], [p2, 'two']] as const) {
    await step(page, `seminar-join-${name}`, async () => {
      if (page === p1) await page.goto(link);
      await page.getByTestId('join-group-name').getByText('Drept civil, grupa 104 — Țăndărei').waitFor();
      expect(await page.getByTestId('consent').innerText()).toBe('Asistentul grupei va vedea soluțiile, notele și rundele cu tutorele pentru temele acestei grupe.');
      await page.getByRole('button', { name: 'Intră în grupă' }).click();
      await page.waitForURL('**/dashboard');
      // Joining twice: the link says so instead of offering to join again.
      await page.goto(link);
      await page.getByText('Ești deja membru al acestei grupe.').waitFor();
    });
  }

  await step(staff, 'seminar-members-live', async () => {
    // The table is subscribed before any work lands; the two members appear.
    await staff.locator('[data-testid="gradebook"][data-live="on"]').waitFor();
    await staff.getByTestId('member').filter({ hasText: s1.username }).waitFor();
    await staff.getByTestId('member').filter({ hasText: s2.username }).waitFor();
    const row = staff.getByRole('row', { name: new RegExp(`@${s1.username}\\b`) });
    await row.getByText('Neînceput').waitFor();
  });

  await step(p1, 'seminar-on-time', async () => {
    await handIn(p1, kase.code, 'Vecinul a ridicat panourile ca să îl șicaneze pe reclamant: abuz de drept, art. 15 C.civ.', ON_TIME, '78/100 · Bine');
    await p1.getByRole('region', { name: 'Evaluare Completă' }).getByText('Exigență Greu (5)').waitFor();
    // The assistant forbade the tutor on this assignment.
    await p1.getByTestId('tutor-forbidden').waitFor();
  });

  await step(staff, 'seminar-table-live-on-time', async () => {
    const row = staff.getByRole('row', { name: new RegExp(`@${s1.username}\\b`) });
    await row.getByText('Notat de AI · 78', { exact: true }).waitFor({ timeout: 20_000 });
  });

  // The deadline passes (moved into the past rather than waited for).
  const { data: asg, error: e1 } = await admin.from('seminar_assignments').select('id').eq('case_id', kase.id).single();
  if (e1) throw e1;
  const hour = 3600_000;
  const moved = await admin
    .from('seminar_assignments')
    .update({ opens_at: new Date(Date.now() - 3 * hour).toISOString(), deadline: new Date(Date.now() - hour).toISOString() })
    .eq('id', asg.id);
  if (moved.error) throw moved.error;

  await step(p2, 'seminar-late', async () => {
    await handIn(p2, kase.code, 'Panourile opace: exercițiu abuziv al dreptului de proprietate, art. 15 și art. 1353 C.civ.', LATE, '64/100');
    await p2.getByTestId('tema-state').getByText(/predată după termen/).waitFor();
  });

  await step(staff, 'seminar-table-live-late', async () => {
    const row = staff.getByRole('row', { name: new RegExp(`@${s2.username}\\b`) });
    await row.getByText('Notat de AI · 64 · întârziat', { exact: true }).waitFor({ timeout: 20_000 });
  });

  await step(staff, 'seminar-correct', async () => {
    const row = staff.getByRole('row', { name: new RegExp(`@${s1.username}\\b`) });
    await row.getByRole('button', { name: /deschide lucrarea/ }).click();
    const view = staff.getByTestId('submission-view');
    await view.getByText('Vecinul a ridicat panourile').waitFor();
    expect(await view.getByTestId('authorship').innerText()).toMatch(/^trecută/);
    expect(await view.getByTestId('tutor-rounds').innerText()).toBe('0');
    await view.getByLabel('Nota ta la 2.2.1 Premisa majoră (din 20)').fill('12');
    await view.getByLabel('Comentariul tău la 2.2.1 Premisa majoră').fill('Lipsește art. 1357 C.civ.');
    await view.getByLabel('Comentariul tău pentru student').fill('Structură bună; premisa majoră e incompletă.');
    await view.getByRole('button', { name: 'Salvează nota mea' }).click();
    await view.getByTestId('grade-of-record').getByText(/^73\/100 · stabilită de asistent/).waitFor();
    await row.getByText('Confirmat · 73', { exact: true }).waitFor();
  });

  await step(p1, 'seminar-student-sees-grade-live', async () => {
    // The case page is still open: the grade of record and the comments arrive without a reload.
    await p1.getByTestId('tema-grade').getByText('Nota asistentului: 73/100').waitFor({ timeout: 20_000 });
    await p1.getByTestId('tema-comment').getByText('Comentariul asistentului: „Structură bună; premisa majoră e incompletă.”').waitFor();
    expect(await p1.getByTestId('staff-criterion').innerText()).toBe('2.2.1 Premisa majoră: 12/20 (AI: 17) — Lipsește art. 1357 C.civ.');
    // My Progress shows it too, and the notification of the grade.
    await p1.getByRole('link', { name: 'Progress' }).first().click();
    await p1.getByTestId('seminar-outcome').filter({ hasText: 'nota asistentului: 73/100' }).waitFor();
    await p1.getByRole('link', { name: /^Notificări: \d+ necitit/ }).click();
    await p1.getByTestId('notification').filter({ hasText: 'Notă confirmată' }).waitFor();
    // Seen, they are read: the bell's count goes.
    await p1.getByRole('link', { name: 'Notificări', exact: true }).waitFor();
  });

  await step(staff, 'seminar-confirm', async () => {
    // The late work: the assistant confirms the AI's grade as it is.
    const row = staff.getByRole('row', { name: new RegExp(`@${s2.username}\\b`) });
    await row.getByRole('button', { name: /deschide lucrarea/ }).click();
    const view = staff.getByTestId('submission-view');
    await view.getByText('Panourile opace').waitFor();
    await view.getByRole('button', { name: 'Confirmă nota AI' }).click();
    await view.getByTestId('grade-of-record').getByText(/^64\/100 · nota AI confirmată/).waitFor();
    await row.getByText('Confirmat · 64 · întârziat', { exact: true }).waitFor();
  });

  await step(staff, 'seminar-csv', async () => {
    const [download] = await Promise.all([staff.waitForEvent('download'), staff.getByRole('button', { name: 'Exportă CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('catalog-drept-civil-grupa-104-tandarei.csv');
    const bytes = fs.readFileSync((await download.path())!);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder('utf-8').decode(bytes.subarray(3)).split('\r\n');
    expect(lines[0]).toBe('Nume;Utilizator;Membru activ;Tema 1: răspunderea vecinului — ședința a doua – notă;Tema 1: răspunderea vecinului — ședința a doua – stare');
    expect(lines).toContain(`Student ${s1.username};${s1.username};da;73;Confirmat`);
    expect(lines).toContain(`Student ${s2.username};${s2.username};da;64;Confirmat, întârziat`);
  });

  await step(staff, 'seminar-rotate', async () => {
    await staff.goto(groupUrl);
    const old = (await staff.getByTestId('join-code').innerText()).trim();
    await staff.getByRole('button', { name: 'Generează un cod nou' }).click();
    await staff.getByTestId('join-code').filter({ hasNotText: old }).waitFor();
    // The old link now says it was replaced.
    await p2.goto(link);
    await p2.getByText('Codul a fost înlocuit de asistent. Cere-i codul nou al grupei.').waitFor();
  });

  await step(p2, 'seminar-leave', async () => {
    await p2.goto(new URL('/seminar', p2.url()).href);
    await p2.getByRole('button', { name: 'Părăsește grupa' }).click();
    await p2.getByRole('dialog', { name: 'Părăsești grupa?' }).getByRole('button', { name: 'Părăsește grupa' }).click();
    await p2.getByText('Nu ești în nicio grupă.', { exact: false }).waitFor();
    // The assistant's table keeps the work, the student marked as former member.
    await staff.getByRole('row', { name: new RegExp(`${s2.username}.*a ieșit din grupă`) }).waitFor({ timeout: 20_000 });
  });

  for (const c of [mctx, c1, c2]) await c.close();
}, 300_000);

// A phrase of a statement the search takes as it is: its longest run of letters and spaces.
const phraseOf = (statement: string) =>
  (statement.match(/[\p{L} ]+/gu) ?? []).reduce((a, b) => (b.trim().length > a.length ? b.trim() : a), '').slice(0, 40).trim();

test('seminar grile: chosen questions picked in the form (code, text, removal; phone, keyboard); Teme shows it live; the student gets exactly those; the table shows it scored', async () => {
  const [m, s] = await Promise.all([makeModerator(), makeStudent()]);
  const { createClient } = await import('@supabase/supabase-js');
  const as = async (u: { email: string; password: string }) => {
    const c = createClient(process.env.CASUS_URL!, process.env.ANON_KEY!, { auth: { persistSession: false } });
    const { error } = await c.auth.signInWithPassword({ email: u.email, password: u.password });
    if (error) throw error;
    return c;
  };
  // The group and the student's membership through the API (the screens are covered above).
  const mc = await as(m);
  const g = await mc.rpc('seminar_create_group', { p_name: 'Grile, grupa 3', p_university_code: 'UB', p_academic_year: '2025-2026', p_semester: 1 });
  if (g.error) throw g.error;
  const code = await mc.from('seminar_join_codes').select('code').eq('group_id', g.data.id).is('retired_at', null).single();
  if (code.error) throw code.error;
  const sc = await as(s);
  const joined = await sc.rpc('seminar_join', { p_code: code.data.code });
  if (joined.error) throw joined.error;
  const qs = await admin.from('grile_questions').select('id, code, statement').is('retired_at', null).order('code').limit(3);
  if (qs.error) throw qs.error;
  const [q1, q2, q3] = qs.data as { id: string; code: string; statement: string }[];

  // The student's dashboard is open, and has read its (empty) "Teme", before the assignment
  // exists: the assignment appears there without a reload.
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await login(ctx, s.email, s.password);
  const firstRead = page.waitForResponse((r) => r.url().includes('/rpc/seminar_my_assignments'));
  await page.goto(new URL('/dashboard', page.url()).href);
  await (await firstRead).finished();
  await page.getByRole('button', { name: 'Drept Civil', exact: true }).waitFor();
  expect(await page.getByTestId('tema').count()).toBe(0);

  // The assistant, on a phone: grile chosen one by one.
  const mctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const staff = await login(mctx, m.email, m.password);
  await staff.goto(new URL(`/seminar/${g.data.id}`, staff.url()).href);
  await step(staff, 'seminar-grile-chosen', async () => {
    await staff.getByText('Temă nouă').click();
    const form = staff.getByRole('form', { name: 'Temă nouă' });
    await form.getByRole('radio', { name: 'Grile', exact: true }).check();
    await form.getByRole('radio', { name: 'Alese de mine' }).check();
    await form.getByLabel('Titlul temei').fill('Grile: obligațiile');
    await form.getByRole('button', { name: 'Creează tema' }).click();
    await form.getByText('Alege cel puțin o grilă.').waitFor();
    const search = form.getByLabel('Caută grile (cod sau text)');
    const results = form.getByRole('list', { name: 'Grile găsite' });
    const chosen = form.getByRole('list', { name: 'Grilele alese' });
    // By code, with the keyboard: Enter searches (it does not send the form), Space adds.
    for (const q of [q1, q3]) {
      await search.fill(q.code);
      await search.press('Enter');
      const hit = results.getByRole('button', { name: new RegExp(q.code) });
      await hit.focus();
      await staff.keyboard.press('Space');
      await chosen.getByRole('button', { name: `Scoate grila ${q.code}` }).waitFor();
    }
    // By a phrase of the statement, with a tap.
    await search.fill(phraseOf(q2.statement));
    await results.getByRole('button', { name: new RegExp(q2.code) }).tap();
    await form.getByTestId('grile-chosen-count').getByText('3 grile alese').waitFor();
    // Removed with the keyboard: the focus moves to the next removal button.
    await chosen.getByRole('button', { name: `Scoate grila ${q3.code}` }).focus();
    await staff.keyboard.press('Enter');
    await form.getByTestId('grile-chosen-count').getByText('2 grile alese').waitFor();
    expect(await staff.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`Scoate grila ${q2.code}`);
    expect((await chosen.getByTestId('grila-aleasa').allInnerTexts()).map((t) => t.split(/\s/)[0])).toEqual([q1.code, q2.code]);
    await form.getByLabel('Durata (minute)').fill('10');
    await form.getByRole('button', { name: 'Creează tema' }).click();
    await staff.getByTestId('assignment').filter({ hasText: 'Grile: obligațiile' }).waitFor();
  });
  const made = await mc.from('seminar_assignments').select('grile_question_ids, grile_count, grile_minutes').eq('group_id', g.data.id).single();
  if (made.error) throw made.error;
  expect(made.data).toEqual({ grile_question_ids: [q1.id, q2.id], grile_count: null, grile_minutes: 10 });

  await step(page, 'seminar-grile', async () => {
    await page.getByTestId('tema').filter({ hasText: 'Grile: obligațiile' }).getByRole('link', { name: 'Deschide grilele' }).click();
    await page.getByRole('button', { name: 'Începe grilele temei' }).click();
    await page.getByRole('timer', { name: 'Timp rămas' }).waitFor();
    // Exactly the chosen questions, in the assistant's order.
    for (const [i, q] of [q1, q2].entries()) {
      await page.getByText(`Grila ${i + 1} din 2`).waitFor();
      await page.getByRole('article', { name: `Grila ${q.code}` }).getByTestId('statement').getByText(q.statement).waitFor();
      await page.getByTestId('option-a').click();
      if (i < 1) await page.getByRole('button', { name: 'Următoarea', exact: true }).click();
    }
    await page.getByRole('button', { name: 'Încheie simularea' }).click();
    await page.getByRole('button', { name: 'Da, încheie' }).click();
    await page.getByTestId('exam-score').waitFor();
  });
  const exam = await sc.from('grile_exams').select('id, question_count').not('assignment_id', 'is', null).single();
  if (exam.error) throw exam.error;
  const asked = await sc.from('grile_exam_answers').select('question_id').eq('exam_id', exam.data.id).order('position');
  if (asked.error) throw asked.error;
  expect([exam.data.question_count, asked.data.map((r: { question_id: string }) => r.question_id)]).toEqual([2, [q1.id, q2.id]]);
  const book = await mc.rpc('seminar_gradebook', { p_group_id: g.data.id });
  if (book.error) throw book.error;
  expect(book.data.map((r: { username: string; state: string; kind: string }) => [r.username, r.kind, r.state])).toEqual([[s.username, 'grile', 'scored']]);
  await ctx.close();
  await mctx.close();
}, 180_000);
