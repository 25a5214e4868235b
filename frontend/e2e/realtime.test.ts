import type { Browser } from 'playwright-core';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { admin, base, launch, login, makeStudent, step } from './support';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

test('My Progress shows a grade the moment it lands, without a reload', async () => {
  const s = await makeStudent();
  const { data: c, error } = await admin
    .from('cases')
    .insert({ case_code: `RTE${Date.now() % 100000}`, title: 'Caz 1: Live', domain: 'civil', verified: true })
    .select('id, case_code')
    .single();
  if (error) throw error;
  const ctx = await browser.newContext();
  const page = await login(ctx, s.email, s.password);
  await step(page, 'progress-live', async () => {
    await page.goto(base + '/reporting');
    await page.getByText('Nu ai soluții trimise încă').waitFor();
    // The student submits from "another device" …
    const other = createClient(base, process.env.ANON_KEY!, { auth: { persistSession: false } });
    await other.auth.signInWithPassword({ email: s.email, password: s.password });
    const { data: sub, error: e2 } = await other
      .from('case_submissions')
      .insert({ case_id: c.id, submission_text: 'Soluția mea', difficulty_rating: 3 })
      .select('id')
      .single();
    if (e2) throw e2;
    await page.getByText('Așteptăm evaluarea...').waitFor();
    // … and the grading path records the grade: the open page shows it.
    const g = await admin
      .from('case_submissions')
      .update({ status: 'graded', score: '82/100', score_value: 82, feedback_text: 'Analiză bună a premisei majore.', feedback_at: new Date().toISOString() })
      .eq('id', sub.id);
    if (g.error) throw g.error;
    await page.getByText('82/100').waitFor({ timeout: 30_000 });
    await page.getByText('Analiză bună a premisei majore.').waitFor();
  });
  await ctx.close();
});

test('colleagues on a case are counted, and their presence keys name nobody', async () => {
  const [s1, s2] = [await makeStudent(), await makeStudent()];
  const code = `RTP${Date.now() % 100000}`;
  const { data: c, error } = await admin.from('cases').insert({ case_code: code, title: 'Caz 1: Prezență', domain: 'civil', verified: true }).select('id').single();
  if (error) throw error;
  const contexts = [await browser.newContext(), await browser.newContext()];
  const pages = [await login(contexts[0], s1.email, s1.password), await login(contexts[1], s2.email, s2.password)];
  for (const [i, page] of pages.entries()) {
    await step(page, `presence-open-${i}`, async () => {
      await page.getByLabel('Caută cazuri după cod sau titlu').fill(code);
      await page.getByRole('option', { name: new RegExp(code) }).waitFor();
      await page.getByLabel('Caută cazuri după cod sau titlu').press('Enter');
      await page.locator('.case header .code', { hasText: code }).waitFor();
    });
  }
  // Each student sees the other, not themselves.
  for (const [i, page] of pages.entries()) {
    // Generous: on a loaded 2-core machine the browsers' sockets take seconds to settle.
    await step(page, `presence-count-${i}`, () => page.getByText('1 coleg studiază acum acest caz').waitFor({ timeout: 20000 }));
  }
  // An anonymous visitor on the same channel sees two presences and neither student's id.
  const anon = createClient(base, process.env.ANON_KEY!, { auth: { persistSession: false } });
  const ch = anon.channel(`case:${c.id}`).on('presence', { event: 'sync' }, () => {});
  await new Promise<void>((resolve, reject) => ch.subscribe((status) => (status === 'SUBSCRIBED' ? resolve() : status === 'CHANNEL_ERROR' ? reject(new Error(status)) : undefined)));
  for (let i = 0; Object.keys(ch.presenceState()).length < 2; i++) {
    if (i > 200) throw new Error('the anonymous visitor never saw both students');
    await new Promise((r) => setTimeout(r, 25));
  }
  const seen = JSON.stringify(ch.presenceState());
  expect(Object.keys(ch.presenceState())).toHaveLength(2);
  expect(seen).not.toContain(s1.id);
  expect(seen).not.toContain(s2.id);
  await anon.removeAllChannels();
  for (const ctx of contexts) await ctx.close();
});
