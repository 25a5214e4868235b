import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The Go server serves dist/ and the backend on one origin; in `vite dev` we proxy to it.
export default defineConfig({
  plugins: [react()],
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
});
