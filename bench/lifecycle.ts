// What every benchmark needs so that it always stops by itself and leaves nothing behind:
// every resource registers how to release itself; signals, crashes and a time limit all run the
// bench's cleanup once; a second signal kills the children at once; if the process dies anyway,
// no child outlives it.
import type { ChildProcess } from 'node:child_process';

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export interface BenchCleanups {
  /** Registers how to release a resource; the newest is released first. */
  onCleanup(name: string, run: () => unknown): void;
  /** How many are registered now: a mark to release back to. */
  mark(): number;
  /** Releases, newest first, what was registered after `mark`. */
  releaseTo(mark: number): Promise<void>;
  /** Releases everything, once: a later call gets the same promise. */
  cleanup(): Promise<void>;
}

/**
 * The resources of one bench run. A release that fails or outlasts `timeoutMs` is written to
 * stderr (unless `quiet`) and the next one still runs, so one stuck resource cannot keep the
 * others alive; `first` runs once before any release (stopping a load that is still running).
 */
export function benchCleanups(opts: { timeoutMs?: number; quiet?: boolean; first?: () => void } = {}): BenchCleanups {
  const registered: Array<{ name: string; run: () => unknown }> = [];
  let cleaning: Promise<void> | undefined;
  const releaseTo = async (mark: number) => {
    while (registered.length > mark) {
      const { name, run } = registered.pop()!;
      const released = Promise.resolve().then(run);
      try {
        await (opts.timeoutMs === undefined ? released : withTimeout(released, opts.timeoutMs, `cleanup ${name}`));
      } catch (err) {
        if (!opts.quiet) process.stderr.write(`cleanup ${name} failed: ${(err as Error).message}\n`);
      }
    }
  };
  return {
    onCleanup: (name, run) => void registered.push({ name, run }),
    mark: () => registered.length,
    releaseTo,
    cleanup: () =>
      (cleaning ??= (async () => {
        opts.first?.();
        await releaseTo(0);
      })()),
  };
}

export interface BenchRun {
  readonly aborting: boolean;
  clearDeadline(): void;
}

export function guardBenchRun(opts: {
  children: Set<ChildProcess>;
  cleanup: () => Promise<void>;
  timeLimitS: number;
}): BenchRun {
  let aborting = false;
  const abort = (reason: string, code: number) => {
    if (aborting) {
      for (const c of opts.children) c.kill('SIGKILL');
      process.exit(code);
    }
    aborting = true;
    process.stderr.write(`\nbench: ${reason}; cleaning up\n`);
    void opts.cleanup().finally(() => process.exit(code));
  };
  process.on('SIGINT', () => abort('interrupted (SIGINT)', 130));
  process.on('SIGTERM', () => abort('terminated (SIGTERM)', 143));
  process.on('SIGHUP', () => abort('hung up (SIGHUP)', 129));
  process.on('uncaughtException', (err) => abort(`uncaught ${err.stack ?? err}`, 1));
  process.on('unhandledRejection', (err) => abort(`unhandled rejection ${(err as Error)?.stack ?? err}`, 1));
  const deadline = setTimeout(
    () => abort(`time limit of ${opts.timeLimitS} s reached (--time-limit)`, 124),
    opts.timeLimitS * 1000,
  );
  process.on('exit', () => {
    for (const c of opts.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  return {
    get aborting() {
      return aborting;
    },
    clearDeadline: () => clearTimeout(deadline),
  };
}

/**
 * Tracks a spawned child in `children` until it exits (or fails to start: `onError` hears why)
 * and stops it: SIGTERM, then SIGKILL after `graceMs`.
 */
export function watchChild(
  proc: ChildProcess,
  children: Set<ChildProcess>,
  onError: (err: Error) => void,
): { exited: Promise<void>; stop(graceMs: number): Promise<void> } {
  children.add(proc);
  const exited = new Promise<void>((resolve) => {
    proc.once('exit', () => {
      children.delete(proc);
      resolve();
    });
    proc.once('error', (err) => {
      onError(err);
      children.delete(proc);
      resolve();
    });
  });
  return {
    exited,
    async stop(graceMs: number) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs the bench's main, cleans up (unless a signal or crash already is), exits 1 on failure. */
export async function finishBench(
  main: () => Promise<void>,
  run: BenchRun,
  cleanup: () => Promise<void>,
): Promise<void> {
  let exitCode = 0;
  try {
    await main();
  } catch (err) {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
    exitCode = 1;
  } finally {
    if (!run.aborting) {
      await cleanup();
      run.clearDeadline();
    }
  }
  if (!run.aborting) process.exit(exitCode);
}
