// Entry of the link lookup thread (src/redirect/lookup-thread.ts): a worker thread starts
// without the main thread's module loader, so it registers tsx itself, as bin/shortlink.mjs does.
import { register } from 'tsx/esm/api';
register();
await import('./lookup-worker.ts');
