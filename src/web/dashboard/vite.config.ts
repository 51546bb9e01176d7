import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The merchant dashboard: a Preact single-page app served by the program at /dashboard. `npm run dev:dashboard`
 * serves it with hot reload and forwards /v1 to a running `npm start` (SVC_API_URL, default http://127.0.0.1:8080).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: {
    proxy: { '/v1': process.env.SVC_API_URL ?? 'http://127.0.0.1:8080' },
  },
  clearScreen: false,
});
