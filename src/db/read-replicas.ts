// Read replicas (DATABASE_READ_URL): the heavy reads of src/db/queries.ts go to a Postgres
// streaming replica that is close enough behind the primary; everything else (writes, the change
// feed, leases, single-row reads, and the jobs of queries.ts that write) stays on the primary.
// docs/operations.md (Read replicas) is the operator's side of this.
//
// How far behind a replica is, is measured against the primary's WAL position, not against
// replay timestamps. Every poll reads the primary's pg_current_wal_lsn() and keeps it with the
// time the question was sent: a replica whose pg_last_wal_replay_lsn() has reached that position
// has every transaction committed before that time. Its lag is the age of the oldest position it
// has not replayed (0 when it has replayed the newest). The usual alternative,
// now() - pg_last_xact_replay_timestamp() when receive and replay positions differ, reads 0 for a
// replica that lost its connection to the primary (it has replayed all it received) and measures
// an idle primary's last transaction, not what the replica lacks; the positions answer the question
// reads ask: is what the primary had at a moment on the replica.
//
// Read-your-own-writes: a change is committed before its answer is sent, and its time is noted
// then (per workspace in this process, and for a dashboard session in a cookie that other
// instances read). A workspace's heavy reads stay on the primary until a replica has replayed
// a primary position taken after that time.
import { AsyncLocalStorage } from 'node:async_hooks';
import knexFactory, { type Knex } from 'knex';
import { inlineQueries, type Queries, type QueryName } from './queries.ts';

/** How often each replica's position, and the primary's, is read. */
export const REPLICA_POLL_MS = 1_000;
/**
 * Connections each instance opens to each replica for reads. A heavy read holds one for as long
 * as it runs; on SQLite two run at once (QUERY_THREADS), here four, on a server that does nothing
 * else. The poll has a connection of its own, so a replica busy with reads is not taken for a
 * lagging one.
 */
export const REPLICA_POOL_MAX = 4;
/** A replica that does not answer a poll within this is unreachable for reads until it does. */
const POLL_TIMEOUT_MS = 2_000;
/** Primary positions kept: a replica further behind than this reads as this far behind. */
const SAMPLES_KEPT = 600;
/**
 * Added to a write time another instance wrote into a session's cookie: instances' clocks agree
 * (NTP) to well within it, and an instance whose clock runs ahead must not take a replica's
 * position from before the write as after it.
 */
const OTHER_CLOCK_MARGIN_MS = 1_000;

/**
 * The queries that only read and may see the primary as it was a moment ago: summaries, reports,
 * analytics, list pages, search, exports. Retention, the click fold and the subscription changes
 * write, so they are not here.
 */
export const REPLICA_READS = [
  'conversionSummary',
  'conversionSummaryWithSeries',
  'conversionNames',
  'goalTally',
  'linksPage',
  'linkSearch',
  'linkAnalytics',
  'linksExportPage',
  'qrCodesPage',
] as const satisfies readonly QueryName[];
type ReplicaRead = (typeof REPLICA_READS)[number];

export type ReplicaState = 'starting' | 'in_sync' | 'lagging' | 'unreachable' | 'not_in_recovery';
/** Why a heavy read went where it went (shortlink_db_reads_total's reason). */
export type ReadReason = 'in_sync' | 'recent_write' | 'replica_failed' | Exclude<ReplicaState, 'in_sync'>;

export interface ReplicaStatus {
  index: number;
  /** host:port, never the URL (it holds a password). */
  host: string;
  state: ReplicaState;
  /** Seconds of the primary's history the replica has not replayed; NaN when unknown. */
  lagSeconds: number;
  inUse: boolean;
}

/** What the HTTP layer tells about changes, so that a screen right after one shows it. */
export interface ReadYourWrites {
  /** A change of `workspaceId` (if any) was committed; returns the time noted. */
  wrote(workspaceId: string | undefined): number;
  /** Runs `fn` as a request of a session that wrote at `at` (on this or another instance). */
  afterWrite<T>(at: number, fn: () => T): T;
  /** How long a session's write time matters (0: no replicas, no cookie). */
  rememberMs: number;
}

/** Without replicas every read is on the primary: nothing to remember. */
export const PRIMARY_ONLY: ReadYourWrites = { wrote: () => Date.now(), afterWrite: (_at, fn) => fn(), rememberMs: 0 };

interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

interface Replica {
  index: number;
  host: string;
  reads: Knex;
  queries: Queries;
  watch: Knex;
  state: ReplicaState;
  lagSeconds: number;
  /** It has every transaction the primary committed before this time (ms). */
  hasUntil: number;
}

/** An LSN ('16/B374D848') as a number of bytes. */
export function lsnBytes(lsn: string): bigint {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return u.host || u.searchParams.get('host') || '?';
  } catch {
    return '?';
  }
}

function openReplica(url: string, max: number, timeouts: boolean): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      connectionTimeoutMillis: POLL_TIMEOUT_MS,
      ...(timeouts ? { statement_timeout: POLL_TIMEOUT_MS } : {}),
    },
    pool: { min: 0, max },
    acquireConnectionTimeout: POLL_TIMEOUT_MS + 1_000,
    // Knex would print a replica's connection errors to the console; the poll logs its state instead.
    log: { warn() {}, error() {}, debug() {}, deprecate() {} },
  });
}

export class ReadReplicas implements ReadYourWrites {
  private readonly replicas: Replica[];
  /** The primary's WAL position, oldest first, with the time each was asked for. */
  private readonly samples: { at: number; lsn: bigint }[] = [];
  /** When each workspace's last change through this process was committed. */
  private readonly writes = new Map<string, number>();
  private readonly session = new AsyncLocalStorage<number>();
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;
  /** Heavy reads by "target reason" (replica in_sync, primary lagging, ...). */
  readonly reads = new Map<string, number>();
  readonly rememberMs: number;

  constructor(
    private readonly primary: Knex,
    private readonly primaryQueries: Queries,
    urls: string[],
    private readonly maxLagMs: number,
    private readonly log: Logger,
  ) {
    this.replicas = urls.map((url, index) => {
      const reads = openReplica(url, REPLICA_POOL_MAX, false);
      return {
        index,
        host: hostOf(url),
        reads,
        queries: inlineQueries(reads),
        watch: openReplica(url, 1, true),
        state: 'starting',
        lagSeconds: Number.NaN,
        hasUntil: 0,
      };
    });
    // A write older than the bound (and the polls that measure it) is on every replica in use.
    this.rememberMs = maxLagMs + 2 * REPLICA_POLL_MS + OTHER_CLOCK_MARGIN_MS;
  }

  /** Polls now, then every REPLICA_POLL_MS; resolves after the first poll. */
  async start(): Promise<void> {
    await this.pollOnce();
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.polling = this.pollOnce().finally(loop);
      }, REPLICA_POLL_MS);
      this.timer.unref();
    };
    loop();
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
    await Promise.all(this.replicas.flatMap((r) => [r.reads.destroy(), r.watch.destroy()]));
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({
      index: r.index,
      host: r.host,
      state: r.state,
      lagSeconds: r.lagSeconds,
      inUse: r.state === 'in_sync',
    }));
  }

  wrote(workspaceId: string | undefined): number {
    const at = Date.now();
    if (workspaceId) this.writes.set(workspaceId, at);
    return at;
  }

  afterWrite<T>(at: number, fn: () => T): T {
    // A time from the future is no instance's (the cookie is the browser's to change): it would
    // hold the session's reads on the primary for as long as it liked.
    const now = Date.now();
    if (at > now + OTHER_CLOCK_MARGIN_MS || at < now - this.rememberMs) return fn();
    return this.session.run(at + OTHER_CLOCK_MARGIN_MS, fn);
  }

  /** `queries` with the heavy reads sent to a replica when one has what the reader must see. */
  route(): Queries {
    const routed: Record<string, unknown> = { ...this.primaryQueries };
    for (const name of REPLICA_READS)
      routed[name] = (workspaceId: string, ...rest: unknown[]) => this.read(name, workspaceId, rest);
    return routed as Queries;
  }

  private async read(name: ReplicaRead, workspaceId: string, rest: unknown[]): Promise<unknown> {
    const call = (queries: Queries) =>
      (queries[name] as (workspaceId: string, ...rest: unknown[]) => Promise<unknown>)(workspaceId, ...rest);
    const { replica, reason } = this.choose(workspaceId);
    if (!replica) {
      this.count('primary', reason);
      return call(this.primaryQueries);
    }
    try {
      const result = await call(replica.queries);
      this.count('replica', reason);
      return result;
    } catch (err) {
      // A read changes nothing, so it may run again. A replica that went away between two polls
      // costs its readers a retry, not an error; the next poll decides whether it is back.
      if (replica.state === 'in_sync') {
        replica.state = 'unreachable';
        replica.lagSeconds = Number.NaN;
        this.log.warn(
          { replica: replica.index, host: replica.host, err },
          'a read on a replica failed; reading the primary',
        );
      }
      this.count('primary', 'replica_failed');
      return call(this.primaryQueries);
    }
  }

  private choose(workspaceId: string): { replica?: Replica; reason: ReadReason } {
    const usable = this.replicas.filter((r) => r.state === 'in_sync');
    if (!usable.length) return { reason: this.worstState() };
    const wroteAt = Math.max(this.writes.get(workspaceId) ?? 0, this.session.getStore() ?? 0);
    // A position asked for after the write was committed covers it.
    const fresh = usable.filter((r) => r.hasUntil > wroteAt);
    if (!fresh.length) return { reason: 'recent_write' };
    return { replica: fresh[this.next++ % fresh.length], reason: 'in_sync' };
  }

  /** Why no replica is in use: the state of the one closest to usable. */
  private worstState(): ReplicaState {
    const order: ReplicaState[] = ['lagging', 'starting', 'not_in_recovery', 'unreachable'];
    return order.find((s) => this.replicas.some((r) => r.state === s)) ?? 'unreachable';
  }

  private count(target: 'replica' | 'primary', reason: ReadReason) {
    const key = `${target} ${reason}`;
    this.reads.set(key, (this.reads.get(key) ?? 0) + 1);
  }

  private async pollOnce(): Promise<void> {
    const at = Date.now();
    try {
      const { rows } = await this.primary.raw('SELECT pg_current_wal_lsn()::text AS lsn');
      this.samples.push({ at, lsn: lsnBytes(rows[0].lsn) });
      if (this.samples.length > SAMPLES_KEPT) this.samples.shift();
    } catch (err) {
      // Without the primary's position nothing can be judged; its reads fail anyway.
      this.log.warn({ err }, "reading the primary's WAL position failed");
      return;
    }
    await Promise.all(this.replicas.map((r) => this.pollReplica(r)));
    for (const [workspaceId, wroteAt] of this.writes)
      if (at - wroteAt > this.rememberMs) this.writes.delete(workspaceId);
  }

  private async pollReplica(r: Replica): Promise<void> {
    const before = r.state;
    try {
      const { rows } = await r.watch.raw(
        'SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replay',
      );
      if (!rows[0].recovery || rows[0].replay === null) {
        // A promoted replica, or a primary named by mistake: its data may have parted from the primary's.
        r.state = 'not_in_recovery';
        r.lagSeconds = Number.NaN;
      } else {
        const replay = lsnBytes(rows[0].replay);
        const missing = this.samples.find((s) => s.lsn > replay);
        const has = this.samples.filter((s) => s.lsn <= replay);
        r.hasUntil = has.length ? has[has.length - 1].at : 0;
        const now = Date.now();
        r.lagSeconds = missing ? (now - missing.at) / 1000 : 0;
        r.state = r.lagSeconds * 1000 > this.maxLagMs ? 'lagging' : 'in_sync';
      }
    } catch (err) {
      r.state = 'unreachable';
      r.lagSeconds = Number.NaN;
      if (before !== 'unreachable') this.log.warn({ replica: r.index, host: r.host, err }, 'a replica does not answer');
    }
    if (r.state === before || r.state === 'unreachable') return;
    const about = { replica: r.index, host: r.host, state: r.state, lagSeconds: r.lagSeconds };
    if (r.state === 'in_sync') this.log.info(about, 'a replica takes reads');
    else this.log.warn(about, 'a replica takes no reads');
  }
}
