import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// The Go server serves dist/ and the backend on one origin; in `vite dev` we proxy to it.
export default defineConfig(({ command }) => ({
  plugins: [react()],
  // The web app's bundle only: supabase-js's Storage and Edge Functions clients, which Casus
  // never uses, are replaced by stand-ins that fail on use (src/lib/shims), so they do not
  // weigh on the first load; its Realtime client by one that loads the real one on the
  // first channel. Tests and tools import the real packages.
  resolve: command === 'build' ? {
    alias: [
      { find: /^@supabase\/storage-js$/, replacement: fileURLToPath(new URL('./src/lib/shims/storage-js.ts', import.meta.url)) },
      { find: /^@supabase\/functions-js$/, replacement: fileURLToPath(new URL('./src/lib/shims/functions-js.ts', import.meta.url)) },
      { find: /^@supabase\/realtime-js$/, replacement: fileURLToPath(new URL('./src/lib/shims/realtime-js.ts', import.meta.url)) },
    ],
  } : undefined,
  server: {
    proxy: {
      '/auth': 'http://localhost:8080',
      '/rest': 'http://localhost:8080',
      '/realtime': { target: 'ws://localhost:8080', ws: true },
      '/ai': 'http://localhost:8080',
      '/codes': 'http://localhost:8080',
      '/config.json': 'http://localhost:8080',
    },
  },
  build: { target: 'es2022', sourcemap: false },
}));
