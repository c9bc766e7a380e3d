// Helper threads yield the CPU to the thread that answers visitors.
import os from 'node:os';

/**
 * Raises the calling thread's nice value by `increment` (at most 19). Work that can wait (a
 * flush of buffered clicks, an API query) should not take a time slice from a redirect: when a
 * core is idle the thread gets all of it; only when every core is busy does the scheduler (CFS)
 * share a contended core by weight. Linux only: there setpriority(PRIO_PROCESS, 0) changes the
 * calling thread alone; on other systems it would change the whole process, so nothing is done.
 */
export function lowerThisThreadsPriority(increment: number): void {
  if (process.platform !== 'linux') return;
  try {
    os.setPriority(0, Math.min(19, os.getPriority(0) + increment));
  } catch {
    // Not permitted (a sandbox's seccomp rules): the thread keeps the process's priority.
  }
}
