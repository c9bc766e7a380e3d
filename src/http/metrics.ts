// GET /metrics (openapi/paths/metrics.yaml): this process's metrics in Prometheus's text format,
// through prom-client. The busy paths keep plain counters of their own (the redirect path's
// answers by status and its cache's hits and misses, the click recorder's counts, the webhook
// worker's settled attempts) and the metrics read them when scraped: a labelled prom-client
// metric updated on every redirect would cost more than the rest of a redirect's bookkeeping.
// What lives in the database (the outbox) is counted when scraped, by the status index; the
// raw events' partitions ahead (Postgres) are read from the catalog when scraped.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { ClickRecorder } from '../clicks/buffer.ts';
import { poolUse, type Database } from '../db/knex.ts';
import type { ReadReplicas } from '../db/read-replicas.ts';
import { partitionDaysAhead } from '../db/repos/event-partitions.ts';
import { outboxGauges } from '../db/repos/webhook-delivery-gauges.ts';
import type { RedirectService } from '../redirect/handler.ts';
import type { WebhookWorker } from '../webhooks/worker.ts';

export interface MetricSources {
  redirects: Pick<
    RedirectService,
    'responses' | 'cacheHits' | 'cacheMisses' | 'cachedLinks' | 'residentHits' | 'residentLinks' | 'residentBytes'
  >;
  clicks: Pick<ClickRecorder, 'recorded' | 'written' | 'dropped' | 'backlog'>;
  webhooks: Pick<WebhookWorker, 'settled'>;
  db: Database;
  /** DATABASE_READ_URL's replicas; without them their metrics are absent. */
  replicas?: Pick<ReadReplicas, 'status' | 'reads'> | null;
}

export interface Metrics {
  contentType: string;
  render(): Promise<string>;
}

/** A counter whose value is read from `read` when scraped (prom-client's counters only count up from 0). */
function readCounter(registry: Registry, name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

export function createMetrics(s: MetricSources): Metrics {
  const registry = new Registry();
  // Node's own: event-loop delay (lag, and percentiles of monitorEventLoopDelay), heap, GC, handles.
  collectDefaultMetrics({ register: registry });

  new Counter({
    name: 'shortlink_redirect_responses_total',
    help: 'Answers of the redirect path (short links, QR codes, bio pages and their visitor pages) by HTTP status.',
    labelNames: ['status'],
    registers: [registry],
    collect() {
      this.reset();
      s.redirects.responses.forEach((n, status) => {
        if (n > 0) this.inc({ status: String(status) }, n);
      });
    },
  });
  readCounter(
    registry,
    'shortlink_link_cache_hits_total',
    "Short-link lookups answered from this process's link cache.",
    () => s.redirects.cacheHits,
  );
  readCounter(
    registry,
    'shortlink_link_cache_misses_total',
    'Short-link lookups that had to read the database.',
    () => s.redirects.cacheMisses,
  );
  readCounter(
    registry,
    'shortlink_link_cache_resident_hits_total',
    'Of the cache hits, those parsed from the resident tier (the links loaded at start) for want of a parsed copy.',
    () => s.redirects.residentHits,
  );
  new Gauge({
    name: 'shortlink_link_cache_entries',
    help: "Links this process's link cache keeps parsed: the visits' database reads with unknown addresses (the hot tier), and the resident links visited (at most 100,000 of each).",
    registers: [registry],
    collect() {
      this.set(s.redirects.cachedLinks);
    },
  });
  new Gauge({
    name: 'shortlink_link_cache_resident_links',
    help: "Links in the resident tier of this process's link cache: the live links loaded at start, at most REDIRECT_CACHE_LINKS.",
    registers: [registry],
    collect() {
      this.set(s.redirects.residentLinks);
    },
  });
  new Gauge({
    name: 'shortlink_link_cache_resident_bytes',
    help: 'Memory the resident tier holds outside the JavaScript heap, in bytes.',
    registers: [registry],
    collect() {
      this.set(s.redirects.residentBytes);
    },
  });

  readCounter(
    registry,
    'shortlink_clicks_recorded_total',
    'Clicks (and bio page views and block clicks) by people, buffered to be written.',
    () => s.clicks.recorded,
  );
  readCounter(
    registry,
    'shortlink_clicks_written_total',
    'Buffered clicks the click writer committed to the database.',
    () => s.clicks.written,
  );
  readCounter(
    registry,
    'shortlink_clicks_dropped_total',
    'Buffered clicks dropped unwritten because the buffer was full (the database unreachable for long).',
    () => s.clicks.dropped,
  );
  new Gauge({
    name: 'shortlink_click_backlog',
    help: 'Clicks recorded and not yet written (the buffer and the flush under way). /readyz fails above 200,000.',
    registers: [registry],
    collect() {
      this.set(s.clicks.backlog);
    },
  });

  new Counter({
    name: 'shortlink_webhook_attempts_total',
    help: "Webhook attempts this process settled, by variant and the delivery's status after it (delivered, retry, failed, unknown).",
    labelNames: ['variant', 'result'],
    registers: [registry],
    collect() {
      this.reset();
      const result: Record<string, string> = {
        DELIVERED: 'delivered',
        PENDING: 'retry',
        FAILED: 'failed',
        UNKNOWN: 'unknown',
      };
      for (const [key, n] of s.webhooks.settled) {
        const [variant, status] = key.split(' ');
        this.inc({ variant, result: result[status] ?? status.toLowerCase() }, n);
      }
    },
  });
  // One read of the outbox per scrape serves the three gauges below.
  let outbox: Promise<Awaited<ReturnType<typeof outboxGauges>>> | undefined;
  // An unreachable database leaves these NaN; the rest of the metrics still answer.
  const readOutbox = () =>
    (outbox ??= outboxGauges(s.db.knex)
      .catch(() => ({ waiting: NaN, unknown: NaN, oldestWaitingAt: null }))
      .finally(() => setTimeout(() => (outbox = undefined), 1_000).unref()));
  new Gauge({
    name: 'shortlink_webhook_deliveries_unknown',
    help: 'Variant A deliveries whose outcome could not be established, waiting for a person (Mark delivered / Mark failed).',
    registers: [registry],
    async collect() {
      this.set((await readOutbox()).unknown);
    },
  });
  new Gauge({
    name: 'shortlink_webhook_outbox_depth',
    help: 'Deliveries waiting to be sent (PENDING, or SENDING under a lease), of every process.',
    registers: [registry],
    async collect() {
      this.set((await readOutbox()).waiting);
    },
  });
  new Gauge({
    name: 'shortlink_webhook_outbox_oldest_age_seconds',
    help: 'Age of the oldest delivery waiting to be sent; 0 when none waits.',
    registers: [registry],
    async collect() {
      const oldest = (await readOutbox()).oldestWaitingAt;
      this.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000));
    },
  });

  new Gauge({
    name: 'shortlink_db_pool_connections',
    help: "This process's database connections by state (used, free), the requests waiting for one (pending), and the pool's size (max).",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const p = poolUse(s.db);
      this.set({ state: 'used' }, p.used);
      this.set({ state: 'free' }, p.free);
      this.set({ state: 'pending' }, p.pending);
      this.set({ state: 'max' }, p.max);
    },
  });

  const replicas = s.replicas;
  if (replicas) {
    // Replicas by their place in DATABASE_READ_URL: a URL holds a password.
    new Gauge({
      name: 'shortlink_db_replica_lag_seconds',
      help: "How far a read replica is behind the primary: the age of the oldest of the primary's WAL positions (read every second) it has not replayed; 0 when it has them all; NaN when it does not answer.",
      labelNames: ['replica'],
      registers: [registry],
      collect() {
        for (const r of replicas.status()) this.set({ replica: String(r.index) }, r.lagSeconds);
      },
    });
    new Gauge({
      name: 'shortlink_db_replica_in_use',
      help: 'Whether a read replica takes heavy reads (1): it answers, is a replica, and is within DATABASE_READ_MAX_LAG_MS.',
      labelNames: ['replica'],
      registers: [registry],
      collect() {
        for (const r of replicas.status()) this.set({ replica: String(r.index) }, r.inUse ? 1 : 0);
      },
    });
    new Counter({
      name: 'shortlink_db_reads_total',
      help: 'Heavy reads (summaries, reports, analytics, list pages, search, exports) by where they ran (replica, primary) and why: in_sync; recent_write (the reader changed something a replica does not have yet); lagging, unreachable, not_in_recovery, starting (no replica in use); replica_failed (read again on the primary).',
      labelNames: ['target', 'reason'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [key, n] of replicas.reads) {
          const [target, reason] = key.split(' ');
          this.inc({ target, reason }, n);
        }
      },
    });
  }

  new Gauge({
    name: 'shortlink_event_partition_days_ahead',
    help: "Postgres: the days after today whose raw events' partitions are made (7 while the upkeep keeps up; -1 when today has none and its events go to the DEFAULT partition).",
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      if (s.db.engine !== 'postgres') return;
      // An unreachable database leaves the last values; the rest of the metrics still answer.
      const ahead = await partitionDaysAhead(s.db.knex).catch(() => []);
      for (const { table, days } of ahead) this.set({ table }, days);
    },
  });

  return { contentType: registry.contentType, render: () => registry.metrics() };
}
