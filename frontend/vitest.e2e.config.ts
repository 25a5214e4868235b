import { defineConfig } from 'vitest/config';

// Browser end-to-end tests: playwright-core driving Debian's chromium against the
// server started by scripts/with-server.sh.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['e2e/**/*.test.ts'],
    fileParallelism: false,
    // Whole user journeys, each a bound rather than a wait: generous so that a busy 2-core
    // machine (CI beside other work) finishes them; every step inside waits on the page.
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
