// The dashboard's build: `npm run build:web` writes the single-page app to dist/web (served by
// the service at /app/), then prints the size of every file and of the first load.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { reportSize } from './report-size.mjs';

const here = new URL('.', import.meta.url).pathname;

export default defineConfig({
  root: here,
  base: '/app/',
  plugins: [react(), reportSize({ budgetBytes: 250_000 })],
  resolve: {
    // The CSV writer (src/domain/csv.ts) imports csv-stringify/sync, whose Node build uses Buffer;
    // the package's browser build is the same code with what it needs of Buffer inside.
    alias: [{ find: /^csv-stringify\/sync$/, replacement: 'csv-stringify/browser/esm/sync' }],
  },
  build: {
    outDir: new URL('../../dist/web', import.meta.url).pathname,
    emptyOutDir: true,
    // report-size.mjs prints raw and gzipped sizes itself.
    reportCompressedSize: false,
    target: 'es2022',
    sourcemap: false,
  },
});
