// Entry of the city names thread from the sources (src/platform/thread-entry.ts): a worker thread
// starts without the main thread's module loader, so it registers tsx itself.
import { register } from 'tsx/esm/api';
register();
await import('./city-names-worker.ts');
