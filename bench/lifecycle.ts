// What every benchmark needs so that it always stops by itself and leaves nothing behind:
// signals, crashes and a time limit all run the bench's cleanup once; a second signal kills the
// children at once; if the process dies anyway, no child outlives it.
import type { ChildProcess } from 'node:child_process';

export interface BenchRun {
  readonly aborting: boolean;
  clearDeadline(): void;
}

export function guardBenchRun(opts: { children: Set<ChildProcess>; cleanup: () => Promise<void>; timeLimitS: number }): BenchRun {
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
  const deadline = setTimeout(() => abort(`time limit of ${opts.timeLimitS} s reached (--time-limit)`, 124), opts.timeLimitS * 1000);
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
