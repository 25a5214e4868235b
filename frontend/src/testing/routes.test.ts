// @vitest-environment node
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

// ARCHITECTURE.md: every route's page is its own chunk, loaded when the route is opened
// (React.lazy in app/App.tsx), the account pages included. A page imported statically would
// land in the entry chunk that every screen downloads.
const app = fs.readFileSync(path.join(__dirname, '..', 'app', 'App.tsx'), 'utf8');

test('no route page is imported statically by the app shell', () => {
  const statics = [...app.matchAll(/^import\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]);
  const pages = statics.filter((p) => /^\.\/routes\//.test(p) || (/\/features\/[^/]+\/components\//.test(p) && !/\/features\/mfa\/components\/MfaGate$/.test(p)));
  expect(pages).toEqual([]);
});

test('every page element of a route is a lazy component', () => {
  const lazyNames = new Set([...app.matchAll(/const (\w+) = lazy\(/g)].map((m) => m[1]));
  // The dashboard renders its lazy component until its preloaded module is there.
  lazyNames.add('Dashboard');
  const wrappers = new Set(['Suspense', 'Protected', 'MfaGate', 'Navigate', 'VisitorRoute', 'Loading']);
  const elements = [...app.matchAll(/<Route path="[^"]+" element=\{(.*?)\} \/>/g)].map((m) => m[1]);
  expect(elements.length).toBeGreaterThan(10);
  for (const el of elements) {
    const names = [...el.matchAll(/<(\w+)/g)].map((m) => m[1]).filter((n) => !wrappers.has(n));
    for (const n of names) expect(lazyNames.has(n), `route element ${el} renders ${n}, not a lazy page`).toBe(true);
  }
});
