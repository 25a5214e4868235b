// @vitest-environment node
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

// ARCHITECTURE.md, "Loading data": components and hooks load through lib/query (useQuery),
// which alone drops stale answers. A hand-written "ignore a late answer" flag, or state set
// from a promise in an effect, is the pattern it replaced.
const src = path.join(__dirname, '..');
const files = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(path.join(dir, d.name)) : /\.tsx?$/.test(d.name) && !/\.test\.tsx?$/.test(d.name) ? [path.join(dir, d.name)] : []));
const sources = files(src).filter((f) => !f.endsWith(path.join('lib', 'query.ts')));

test('no hand-written stale-answer guard', () => {
  const guard = /let (\w+) = (?:true|false);[\s\S]{0,600}?return \(\) => \{[^}]*\b\1 = (?:true|false)/;
  const offenders = sources.filter((f) => guard.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(src, f));
  expect(offenders).toEqual([]);
});

test('no state set straight from a load promise', () => {
  const setFromPromise = /\.then\(\s*(?:set[A-Z]\w*\s*[,)]|\(?\w*\)?\s*=>\s*(?:!?\w+\s*&&\s*)?set[A-Z])/;
  const offenders = sources.filter((f) => setFromPromise.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(src, f));
  expect(offenders).toEqual([]);
});
