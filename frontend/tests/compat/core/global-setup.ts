// Loads the fixture schema (fixture/*.sql, in name order) into the database of the server
// that scripts/with-server.sh started with CASUS_APP=none, the way a Supabase user would:
// with psql, as the database owner. The server learns the new objects from its DDL watch
// (NOTIFY pgrst), so the setup then waits until the last fixture table is served.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(__dirname, 'fixture');

export default async function setup(): Promise<void> {
  const dbURL = process.env.DATABASE_URL;
  const url = process.env.CASUS_URL;
  const anonKey = process.env.ANON_KEY;
  if (!dbURL || !url || !anonKey) throw new Error('run under scripts/with-server.sh with CASUS_APP=none');
  // fixture/200_stock_project.sql configures PostgREST on the role every Supabase project
  // names `authenticator`, and exposes `personal`: `make test/core` starts the server so.
  if (process.env.DB_AUTHENTICATOR !== 'authenticator' || !(process.env.DB_SCHEMAS ?? '').split(',').includes('personal')) {
    throw new Error('run with DB_AUTHENTICATOR=authenticator WITH_SERVER_SCHEMAS=lib_extra,personal (make test/core)');
  }
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  for (const f of files) {
    execFileSync('psql', [dbURL, '-q', '-v', 'ON_ERROR_STOP=1', '-f', join(dir, f)], { stdio: 'inherit' });
  }
  // fixture_ready is created by the last fixture file: once it is served, every earlier one is.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${url}/rest/v1/fixture_ready?select=id`, { headers: { apikey: anonKey } });
    if (res.ok) return;
    if (Date.now() > deadline) throw new Error(`fixture not served after 30 s: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
