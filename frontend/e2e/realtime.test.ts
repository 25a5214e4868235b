import type { Browser } from 'playwright-core';
import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, test } from 'vitest';
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
    await page.getByText('82/100').waitFor({ timeout: 5000 });
    await page.getByText('Analiză bună a premisei majore.').waitFor();
  });
  await ctx.close();
});
