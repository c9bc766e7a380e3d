// What both link lookup threads (lookup-worker.ts for SQLite, pg-lookup-worker.ts for Postgres)
// answer the same way: a page of scanned links, its buffer moved to the main thread rather than
// copied, and a failure with the driver's reason and code (lookup-thread.ts rejects with them).
import type { MessagePort } from 'node:worker_threads';
import type { FromLookupThread } from './lookup-thread.ts';
import { encodeLinkPage } from './redirect-rows.ts';

/** Posts the scanned rows (LINKS_AFTER_ID's columns, as arrays) as one encoded page. */
export function postLinkPage(port: MessagePort, id: number, scanned: unknown[][]): void {
  const { page, rows, lastId } = encodeLinkPage(scanned);
  port.postMessage({ type: 'page', id, page: page.buffer as ArrayBuffer, rows, lastId } satisfies FromLookupThread, [
    page.buffer as ArrayBuffer,
  ]);
}

/** The answer to request `id` that failed with `err`. */
export function lookupFailed(id: number, err: unknown): FromLookupThread {
  const e = err as { message?: string; code?: string };
  return { type: 'failed', id, message: e.message ?? String(err), code: e.code };
}
