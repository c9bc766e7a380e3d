// Entry of the click writer thread (src/redirect/click-writer.ts): a worker thread starts
// without the main thread's module loader, so it registers tsx itself, as bin/shortlink.mjs does.
import { register } from 'tsx/esm/api';
register();
await import('./click-worker.ts');
