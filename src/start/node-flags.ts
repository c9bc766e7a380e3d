// Node's flags the service wants, and a word in the log when they are missing.
//
// `--min-semi-space-size=16` holds V8's young generation at 16 MiB. With the redirect cache's
// resident tier filled (REDIRECT_CACHE_PRELOAD, a million links), V8 kept it at 8 MiB where the
// same process without the tier grew it to 16, collected it more often, and every redirect cost
// more CPU (bench:redirect with --preload; bench/README.md). V8 reads the flag only when
// the heap is made and Node refuses it in NODE_OPTIONS, so it goes on node's command line
// (`npm start`, deploy/systemd/shortlink@.service).
export const YOUNG_GENERATION_FLAG = '--min-semi-space-size=16';

/** What the log should say at start, or null: the preload is on and node has no such flag. */
export function youngGenerationAdvice(execArgv: readonly string[], preload: boolean): string | null {
  if (!preload || execArgv.some((a) => /^--min[-_]semi[-_]space[-_]size(=|$)/.test(a))) return null;
  return `REDIRECT_CACHE_PRELOAD is on but node was started without ${YOUNG_GENERATION_FLAG}: with many links resident, redirects cost more CPU (npm start and deploy/systemd/shortlink@.service give it)`;
}
