import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import fs from 'node:fs';

export const base = process.env.CASUS_URL!;
const sinkUrl = process.env.SMTP_SINK_URL!;
if (!('WebSocket' in globalThis)) (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;

export const admin = createClient(base, process.env.SERVICE_ROLE_KEY!, { auth: { persistSession: false, autoRefreshToken: false } });

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// step runs a test body and leaves a screenshot under test-output/ when it fails.
// The browser console of each signed-in page (see login), printed when a step fails.
const consoles = new WeakMap<Page, string[]>();

export async function step(page: Page, name: string, body: () => Promise<void>) {
  try {
    await body();
  } catch (err) {
    fs.mkdirSync('test-output', { recursive: true });
    await page.screenshot({ path: `test-output/${name.replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => {});
    const log = consoles.get(page);
    if (log?.length) console.error(`browser console of step ${name}:\n${log.slice(-40).join('\n')}`);
    throw err;
  }
}

export async function mailLink(address: string, count = 1): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mails = (await (await fetch(`${sinkUrl}/messages?to=${encodeURIComponent(address)}`)).json()) as { link: string }[];
    if (mails.length >= count) return mails[count - 1].link;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no mail for ' + address);
}

let n = 0;
export const unique = (p: string) => `${p}${Date.now() % 1_000_000}${n++}`;

// A confirmed student with a profile, made through the admin API and the RPC.
export async function makeStudent(role: 'user' | 'admin' = 'user') {
  const username = unique('stud_');
  const email = `${username}@example.ro`;
  const { data, error } = await admin.auth.admin.createUser({ email, password: 'parola1', email_confirm: true });
  if (error) throw error;
  const p = await admin.rpc('create_user_profile', { p_id: data.user!.id, p_email: email, p_name: 'Student ' + username, p_username: username, p_university_code: 'UB', p_university_category: 'Public', p_university_name: 'Universitatea din București' });
  if (p.error) throw p.error;
  if (role === 'admin') {
    const r = await admin.from('user_profiles').update({ role: 'admin' }).eq('id', data.user!.id);
    if (r.error) throw r.error;
  }
  return { email, username, id: data.user!.id, password: 'parola1' };
}

export async function login(ctx: BrowserContext, email: string, password: string): Promise<Page> {
  // Every wait is on what the page shows; the bound is generous because CI may run beside
  // other work on two cores, where one step can take tens of seconds.
  ctx.setDefaultTimeout(60_000);
  const page = await ctx.newPage();
  const log: string[] = [];
  consoles.set(page, log);
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') log.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
  await page.goto(base + '/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Parolă').fill(password);
  await page.getByRole('button', { name: 'Conectare' }).click();
  await page.waitForURL('**/dashboard');
  return page;
}

// A grade as the grader answers it (JSON, sub-items; the server sums): the ten items'
// scores (in rubric order) spread over their sub-items, for a case of one problem. The
// server grades twice and reconciles, so the same reply is scripted for both passes.
export function gradeReply(scores: number[], strengths = 'Bine structurat.', improve = 'Premisa minoră.') {
  const spread = (n: number, maxima: number[]) => maxima.map((m) => { const v = Math.min(n, m); n -= v; return v; });
  const item = (cod: string, puncte: Record<string, number>, problema?: number) => ({ cod, ...(problema ? { problema } : {}), dovezi: [], motiv: 'observație.', puncte });
  const [ma, mi, co] = [spread(scores[7], [5, 5, 5, 5]), spread(scores[8], [5, 5, 5]), spread(scores[9], [5, 5, 5])];
  const intro = spread(scores[6], [3, 4, 3]);
  const itemi = [
    ...['1.1', '1.2', '1.3', '1.4', '1.5', '1.6'].map((cod, i) => item(cod, { punctaj: scores[i] })),
    item('2.1', { fapte: intro[0], calificare: intro[1], probleme: intro[2] }),
    item('2.2.1', { izvoare: ma[0], relevanta: ma[1], completitudine: ma[2], interpretare: ma[3] }, 1),
    item('2.2.2', { fapte: mi[0], conectare: mi[1], probe: mi[2] }, 1),
    item('2.2.3', { logica: co[0], claritate: co[1], completitudine: co[2] }, 1),
  ];
  const reply = { text: JSON.stringify({ itemi, puncte_forte: strengths, de_imbunatatit: improve }) };
  return [reply, reply];
}
