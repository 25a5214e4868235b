import { defineConfig } from 'vitest/config';

// The Supabase core without the study app: the stock supabase-js client against
// `casus serve` with CASUS_APP=none (scripts/with-server.sh), on the fixture schema that
// tests/compat/core/global-setup.ts loads with psql, as a user of any Supabase app would.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['tests/compat/core/**/*.test.ts'],
    setupFiles: ['tests/support/node-websocket.ts'],
    globalSetup: ['tests/compat/core/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
