// How the service's worker threads (the lookup thread, the query threads, the click writer) are
// closed: asked with their own close message, so that they finish what they hold first.
import type { Worker } from 'node:worker_threads';

/**
 * Posts `message` (the thread's close message) to `worker` and resolves once it has exited; with
 * `graceMs`, a thread still running that long after is terminated. Without it, the thread is
 * awaited however long it takes (the click writer: its last flush must be written).
 */
export async function closeThread(worker: Worker, message: unknown, graceMs?: number): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.postMessage(message);
  const timer = graceMs === undefined ? undefined : setTimeout(() => void worker.terminate(), graceMs);
  await exited;
  clearTimeout(timer);
}
