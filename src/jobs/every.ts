// A background job inside every `serve` process: first `firstMs` after start, then every
// `intervalMs`, never two runs of it at once; a failed run is logged and the next one tries
// again. Its timers never keep the process alive. Returns the stop function.
import type { Logger } from 'pino';

export function every(
  name: string,
  run: () => Promise<void>,
  log: Logger,
  firstMs: number,
  intervalMs: number,
): () => void {
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    run()
      .catch((err) => log.warn({ err }, `${name} failed`))
      .finally(() => (running = false));
  };
  const first = setTimeout(tick, firstMs);
  const timer = setInterval(tick, intervalMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
