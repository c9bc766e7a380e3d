// Entry of a query thread (src/db/query-threads.ts): a worker thread starts without the main
// thread's module loader, so it registers tsx itself, as bin/shortlink.mjs does.
import { register } from 'tsx/esm/api';
register();
await import('./query-worker.ts');
