// Lighthouse (desktop and mobile presets, Debian Chromium) on /login, /try and /dashboard
// signed in (issue 31: performance and accessibility 100 on each, at both sizes), and the
// initial JavaScript of /dashboard (gzip, every script a fresh signed-in load fetches before
// any input). Run against a started stack: scripts/lighthouse.sh does it all.
//   CASUS_URL, SERVICE_ROLE_KEY from scripts/with-server.sh.
// To iterate on one page: LH_ONLY='/dashboard (phone)' (comma-separated, a route alone
// means both presets) runs only those, LH_RUNS=3 runs each that many times and reports the
// median performance, LH_JSON=DIR keeps every report's JSON (and its trace) there.
import { chromium } from 'playwright-core';
import { createClient } from '@supabase/supabase-js';
import lighthouse from 'lighthouse';
import desktop from 'lighthouse/core/config/desktop-config.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import WebSocket from 'ws';

// supabase-js needs a WebSocket constructor; Node 20 has none built in.
if (!('WebSocket' in globalThis)) globalThis.WebSocket = WebSocket;

const base = process.env.CASUS_URL;
const admin = createClient(base, process.env.SERVICE_ROLE_KEY, { auth: { persistSession: false, autoRefreshToken: false } });
const TARGETS = { performance: 100, accessibility: 100, 'best-practices': 95 };
const BUDGET = 140 * 1024;
const ONLY = process.env.LH_ONLY ? process.env.LH_ONLY.split(',').map((x) => x.trim()) : null;
const RUNS = Math.max(1, Number(process.env.LH_RUNS) || 1);
const JSON_DIR = process.env.LH_JSON;
if (JSON_DIR) fs.mkdirSync(JSON_DIR, { recursive: true });
const wanted = (route, preset) => !ONLY || ONLY.includes(route) || ONLY.includes(`${route} (${preset})`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function student() {
  const username = `lh_${Date.now() % 1e8}`;
  const email = `${username}@example.ro`;
  const { data, error } = await admin.auth.admin.createUser({ email, password: 'parola1', email_confirm: true });
  if (error) throw error;
  const p = await admin.rpc('create_user_profile', { p_id: data.user.id, p_email: email, p_name: 'Student ' + username, p_username: username, p_university_code: 'UB', p_university_category: 'Public', p_university_name: 'Universitatea din București' });
  if (p.error) throw p.error;
  return { email, password: 'parola1' };
}

const port = 20000 + Math.floor(Math.random() * 20000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'casus-lh-'));
const ctx = await chromium.launchPersistentContext(dir, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1350, height: 940 },
  args: ['--no-sandbox', '--disable-gpu', `--remote-debugging-port=${port}`, '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let failed = false;
try {
  const s = await student();
  const page = ctx.pages()[0] ?? (await ctx.newPage());

  // Lighthouse on /login before signing in.
  const results = {};
  // Each page with the desktop preset and with Lighthouse's default (mobile: a phone
  // screen, simulated slow 4G and a 4x slower CPU).
  const run = async (url) => {
    for (const [preset, config] of [['desktop', desktop], ['phone', undefined]]) {
      const name = `${new URL(url).pathname} (${preset})`;
      if (!wanted(new URL(url).pathname, preset)) continue;
      const runs = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await lighthouse(url, { port, output: 'json', logLevel: 'error', disableStorageReset: true, onlyCategories: Object.keys(TARGETS) }, config);
        const cats = r.lhr.categories;
        const a = r.lhr.audits;
        runs.push(Object.fromEntries(Object.keys(TARGETS).map((k) => [k, Math.round(cats[k].score * 100)])));
        if (JSON_DIR) {
          const file = path.join(JSON_DIR, `${name.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}-${i + 1}`);
          fs.writeFileSync(`${file}.json`, r.report);
          fs.writeFileSync(`${file}.trace.json`, JSON.stringify(r.artifacts.Trace));
        }
        if (RUNS > 1) console.log(`  ${name} run ${i + 1}: performance ${runs[i].performance}  FCP ${a['first-contentful-paint'].displayValue}  LCP ${a['largest-contentful-paint'].displayValue}  TBT ${a['total-blocking-time'].displayValue}  CLS ${a['cumulative-layout-shift'].displayValue}`);
        for (const k of Object.keys(TARGETS)) {
          if (cats[k].score * 100 < TARGETS[k]) {
            const low = Object.values(a).filter((x) => x.score !== null && x.score < 1 && cats[k].auditRefs.some((y) => y.id === x.id && y.weight > 0));
            console.log(`  ${name} ${k}: ${low.map((x) => `${x.id} (${x.displayValue ?? x.score})`).join(', ')}`);
          }
        }
      }
      results[name] = Object.fromEntries(Object.keys(TARGETS).map((k) => [k, median(runs.map((r) => r[k]))]));
    }
  };
  await run(base + '/login');
  await run(base + '/try');

  // Sign in in the same profile (Lighthouse keeps storage), then /dashboard.
  await page.goto(base + '/login');
  await page.getByLabel('Email').fill(s.email);
  await page.getByLabel('Parolă').fill(s.password);
  await page.getByRole('button', { name: 'Conectare' }).click();
  await page.waitForURL('**/dashboard');
  await page.getByRole('button', { name: 'Drept Civil', exact: true }).waitFor();
  await run(base + '/dashboard');

  // Initial JavaScript of /dashboard: a fresh context (empty cache) with the session.
  const browser = ctx.browser() ?? (await chromium.connectOverCDP(`http://127.0.0.1:${port}`));
  const state = await ctx.storageState();
  const fresh = await browser.newContext({ storageState: state, viewport: { width: 1440, height: 900 } });
  const p2 = await fresh.newPage();
  const scripts = new Map();
  p2.on('response', async (r) => {
    if (r.request().resourceType() !== 'script') return;
    const body = await r.body().catch(() => null);
    if (body) scripts.set(r.url().split('/').pop(), zlib.gzipSync(body, { level: 9 }).length);
  });
  await p2.goto(base + '/dashboard');
  await p2.getByRole('button', { name: 'Drept Civil', exact: true }).waitFor();
  await p2.waitForLoadState('networkidle');
  const total = [...scripts.values()].reduce((a, b) => a + b, 0);
  await fresh.close();

  console.log('LIGHTHOUSE (desktop and mobile presets, Debian Chromium)');
  for (const [route, scores] of Object.entries(results)) {
    console.log(`  ${route.padEnd(22)} ${Object.entries(scores).map(([k, v]) => `${k} ${v}`).join('  ')}`);
    for (const [k, v] of Object.entries(scores)) if (v < TARGETS[k]) failed = true;
  }
  console.log(`BUNDLE /dashboard initial JavaScript: ${(total / 1024).toFixed(1)} kB gzip (budget ${BUDGET / 1024} kB) in ${scripts.size} scripts:`);
  for (const [name, size] of [...scripts].sort((a, b) => b[1] - a[1])) console.log(`  ${(size / 1024).toFixed(1).padStart(6)} kB  ${name}`);
  if (total > BUDGET) failed = true;
} finally {
  await ctx.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
