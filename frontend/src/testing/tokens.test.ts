import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

// The design tokens of styles.css: a custom property defined through itself (directly or
// in a cycle) is invalid, and what uses it silently gets nothing (walkthrough 3, bug 1:
// every success toast transparent in the light theme).
const css = fs.readFileSync(path.join(__dirname, '..', 'styles.css'), 'utf8');

// Each block's declarations of custom properties, as name → the names its value refers to.
function blocks(): Map<string, string[]>[] {
  return [...css.matchAll(/\{([^{}]*)\}/g)].map((m) => {
    const defs = new Map<string, string[]>();
    for (const d of m[1].matchAll(/(--[\w-]+)\s*:\s*([^;]+)/g)) defs.set(d[1], [...d[2].matchAll(/var\(\s*(--[\w-]+)/g)].map((v) => v[1]));
    return defs;
  });
}

test('no design token refers to itself, directly or through others', () => {
  // Light tokens (first :root) with each later block's overrides layered on top.
  const all = blocks().filter((b) => b.size > 0);
  const base = all[0];
  for (const overrides of all) {
    const defs = new Map([...base, ...overrides]);
    const cycle = (name: string, seen: string[]): string[] | null => {
      if (seen.includes(name)) return [...seen, name];
      for (const ref of defs.get(name) ?? []) {
        const c = cycle(ref, [...seen, name]);
        if (c) return c;
      }
      return null;
    };
    for (const name of overrides.keys()) expect(cycle(name, []), `${name} is defined through itself`).toBeNull();
  }
});
