// The background jobs' schedule (src/jobs/every.ts, used by the click fold and retention): a
// first run after its delay, then one per interval, never two at once, a failure logged and
// followed by the next run, nothing after stop.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { scheduleClickFold } from '../../src/jobs/click-folds';
import type { FoldResult } from '../../src/db/repos/click-folds';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the click fold schedule', () => {
  it('runs after its first delay and each interval, one run at a time, past a failure, and stops', async () => {
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    let calls = 0;
    let inFlight = 0;
    let most = 0;
    const done: FoldResult = { ran: true, daysClosed: 0, blocks: 0, steps: 1, rows: 0 };
    const stop = scheduleClickFold(
      {
        clickFold: async () => {
          calls++;
          inFlight++;
          most = Math.max(most, inFlight);
          // The second run fails; every run outlasts two intervals.
          await sleep(50);
          inFlight--;
          if (calls === 2) throw new Error('database away');
          return done;
        },
      },
      log,
      20,
      10,
    );
    await sleep(5);
    expect(calls).toBe(0);
    await sleep(300);
    stop();
    const seen = calls;
    expect(seen).toBeGreaterThanOrEqual(3);
    expect(most).toBe(1);
    expect(warnings.join('')).toMatch(/click fold failed.*database away|database away.*click fold failed/s);
    await sleep(100);
    expect(calls).toBe(seen);
  });
});
