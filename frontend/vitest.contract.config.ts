import { defineConfig } from 'vitest/config';

// Contract tests: the stock supabase-js / Anthropic SDK against the running server
// started by scripts/with-server.sh (CASUS_URL, ANON_KEY, SERVICE_ROLE_KEY, ...).
export default defineConfig({
  test: {
    environment: 'node',
    include: ['tests/compat/**/*.test.ts'],
    // tests/compat/core runs against CASUS_APP=none (vitest.core.config.ts).
    exclude: ['tests/compat/core/**'],
    setupFiles: ['tests/support/node-websocket.ts'],
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
