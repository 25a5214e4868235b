import type { Page } from 'playwright-core';
import fs from 'node:fs';

// Helpers of the study-screen browser tests (dashboard, tutor, My Progress, mobile).

const ai = process.env.FAKE_AI_URL;

// Queues replies on the fake AI upstream (used in order by the next model calls).
export async function script(replies: object[]) {
  await fetch(`${ai}/_script`, { method: 'POST', body: JSON.stringify({ replies }) });
}

export async function resetAI() {
  await fetch(`${ai}/_reset`, { method: 'POST' });
}

// The request bodies the fake upstream received since the last reset.
export async function aiRequests(): Promise<{ system?: string; messages: { role: string; content: unknown }[] }[]> {
  return ((await (await fetch(`${ai}/_requests`)).json()) as []) ?? [];
}

// Opens a case through the sidebar search (type, wait for results, Enter).
export async function openBySearch(page: Page, query: string, title: RegExp | string) {
  const box = page.getByLabel('Caută cazuri după cod sau titlu');
  await box.fill(query);
  await page.getByRole('option').first().waitFor();
  await box.press('Enter');
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

// A figure measured by a browser test: printed as "MEASURE name value unit" and merged
// into test-output/measurements.json.
export function measure(name: string, value: number, unit: string, note?: string) {
  const v = Math.round(value * 10) / 10;
  console.log(`MEASURE ${name} ${v} ${unit}${note ? ` (${note})` : ''}`);
  const file = 'test-output/measurements.json';
  fs.mkdirSync('test-output', { recursive: true });
  let all: Record<string, unknown>;
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    all = {};
  }
  all[name] = { value: v, unit, ...(note ? { note } : {}), at: new Date().toISOString() };
  fs.writeFileSync(file, JSON.stringify(all, null, 2) + '\n');
}

// Polls until cond() holds (or fails after timeout ms).
export async function until(cond: () => Promise<boolean>, what: string, timeout = 10_000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting for ' + what);
}
