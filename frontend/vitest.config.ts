import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// Unit tests: components and rules in jsdom, no server.
export default defineConfig({
  plugins: [react()],
  test: { environment: 'jsdom', include: ['src/**/*.test.{ts,tsx}'], setupFiles: ['src/testing/setup.ts'] },
});
