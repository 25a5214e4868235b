import { defineConfig } from 'vitest/config';

// Browser end-to-end tests: playwright-core driving Debian's chromium against the
// server started by scripts/with-server.sh.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['e2e/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 60_000,
  },
});
