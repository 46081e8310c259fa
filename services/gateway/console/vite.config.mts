// The console's build (docs in ./README.md): a Preact app served by the gateway at /console.
// The gateway's Content-Security-Policy allows no inline script, so no module-preload polyfill.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('../dist/console'),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    // Few, stable names: the gateway caches /console/assets/* for a year (hashed).
    assetsInlineLimit: 0,
  },
  logLevel: 'warn',
});
