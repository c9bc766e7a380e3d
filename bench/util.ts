// What the benchmarks print with and measure by: formatting, a process's memory and CPU time as
// Linux reports them in /proc, a free port, percentiles; the command lines' integer options and --help.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
export const fmtMs = (n: number, decimals = 1) => (Number.isFinite(n) ? n.toFixed(decimals) : '-');

export function log(line = '') {
  process.stdout.write(`${line}\n`);
}

/**
 * A process's resident memory split as /proc/<pid>/status reports it, KiB: anonymous (heaps,
 * stacks: what the process itself holds) and file pages (code, and a memory-mapped database's
 * pages, which the kernel can drop and re-read at any time); null when it cannot be read.
 */
export function rssSplitKiB(pid: number | undefined): { anon: number; file: number } | null {
  if (!pid) return null;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const anon = /RssAnon:\s+(\d+) kB/.exec(status);
    const file = /RssFile:\s+(\d+) kB/.exec(status);
    return anon && file ? { anon: Number(anon[1]), file: Number(file[1]) } : null;
  } catch {
    return null;
  }
}

/** A process's resident memory (VmRSS), KiB; null when it cannot be read (no such process). */
export function rssKiB(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, all threads) a process has used, in ms; NaN when it cannot be read.
 * /proc/<pid>/stat counts in clock ticks of 10 ms (CLK_TCK 100 on Linux), fine over runs of
 * seconds.
 */
export function cpuMs(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * How often the kernel has taken the CPU from a process's main thread while it could still run
 * (/proc/<pid>/status, nonvoluntary_ctxt_switches: another thread or process was picked to
 * run); NaN when it cannot be read. A server that is preempted often loses its caches and its
 * turn while requests wait: on a machine whose cores are all busy, this shows what the other
 * threads and processes cost the one that answers.
 */
export function mainThreadPreemptions(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const m = /^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** CPU time (user + system) per thread of a process, ms by thread id; empty when unreadable. */
export function threadCpuMs(pid: number | undefined): Map<number, number> {
  const out = new Map<number, number>();
  if (!pid) return out;
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // the thread ended
    }
  }
  return out;
}

/**
 * CPU time (user + system) of each process with this command name (e.g. `postgres`: the server
 * and its backends), ms, by pid.
 */
export function processesCpuByPid(comm: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== comm) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byPid.set(Number(pid), (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // the process ended
    }
  }
  return byPid;
}

/**
 * CPU time the processes with this command name spent since `before` (processesCpuByPid), ms:
 * each process now running, less what it had then (a new one counts from zero). A process that
 * ended in between drops out rather than taking its whole life's CPU off the total (an idle
 * connection's backend closed by its pool made the plain difference of sums negative).
 */
export function processesCpuSince(comm: string, before: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of processesCpuByPid(comm)) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** A TCP port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Columns padded to their widest cell: the first to the left, the figures to the right. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The median: the middle value, or the mean of the two middle ones; NaN when there are none. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The p-th percentile (nearest rank) of values sorted in ascending order; NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export interface ScratchPostgres {
  name: string;
  url: string;
  /** Drops the database (connections included). */
  drop(): Promise<void>;
}

/**
 * A fresh Postgres database for one bench run on TEST_POSTGRES_URL's server (default: the local
 * one the tests use), named `${prefix}_<pid>_<random>`; the caller registers `drop` as a cleanup.
 */
export async function createScratchPostgres(prefix: string): Promise<ScratchPostgres> {
  const admin = process.env.TEST_POSTGRES_URL || 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const adminQuery = async (sql: string) => {
    const c = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 10_000 });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await adminQuery(`CREATE DATABASE ${name}`);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return { name, url: u.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * The benchmarks start the service as production runs it, compiled (dist/): this builds it from
 * the current sources first (a couple of seconds), so a figure never comes from stale code.
 */
export function buildService(root: string): void {
  execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
}

/**
 * Node's flags for the service of the checkout at `root`, as its `npm start` and
 * deploy/systemd/shortlink@.service give them (package.json; docs/short-links.md says why).
 */
export const nodeFlagsOf = (root: string): string[] =>
  (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start as string)
    .split(' ')
    .filter((a) => a.startsWith('--'));

/** An integer option of at least `min`, or the usage error (exit 2). */
export function intOption(name: string, v: string | undefined, min = 1): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    process.stderr.write(`--${name} must be an integer ≥ ${min}; got ${v}\n`);
    process.exit(2);
  }
  return n;
}

/** --help: prints the script's opening comment (the file at `moduleUrl`) and exits. */
export function printHeaderAndExit(moduleUrl: string): never {
  const header = fs
    .readFileSync(fileURLToPath(moduleUrl), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('//'));
  process.stdout.write(`${header.map((l) => l.replace(/^\/\/ ?/, '')).join('\n')}\n`);
  process.exit(0);
}
