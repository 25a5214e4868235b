import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// Unit tests: components and rules in jsdom, no server.
export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/testing/setup.ts'],
    // A bound, not a wait: jsdom renders with user-event take seconds on a busy 2-core machine
    // (the default 5 s timed a passing test out beside a Go build).
    testTimeout: 30_000,
  },
});
