// The database work of the API and the background jobs whose cost grows with the data: summaries
// and reports over a workspace's conversions and clicks, list pages, retention, and the
// subscription changes that rebuild a workspace's click windows. better-sqlite3
// answers synchronously, so on SQLite any of these run on the event loop would hold every visitor
// for as long as it takes (a summary reading a day of a busy workspace's raw clicks takes
// seconds). So on SQLite they run on query threads (src/db/query-threads.ts); on Postgres, whose
// reads are asynchronous, on the service's own pool, and the reads among them on a read replica
// when there is one in sync (src/db/read-replicas.ts REPLICA_READS: a query that writes must not
// be listed there). Each takes a Knex first and returns plain data (it crosses threads by
// structured clone). A read's first argument is its workspace's id: reads after a change of that
// workspace stay on the primary.
import type { Knex } from 'knex';
import { readConversionSummary, readGoalTally } from './repos/conversion-tallies.ts';
import { conversionNames } from './repos/conversion-names.ts';
import { readConversionSummaryWithSeries } from './repos/conversion-series.ts';
import { runClickFold } from './repos/click-folds.ts';
import { ensureEventPartitions } from './repos/event-partitions.ts';
import { readLinkAnalytics } from './repos/link-analytics.ts';
import { searchLinks } from './repos/link-search.ts';
import { linksExportPage } from './repos/link-export.ts';
import { readLinksPage } from './repos/links.ts';
import { runRetention } from './repos/retention.ts';
import { qrCodesPage } from './repos/qr-codes.ts';
import { insertSubscription, updateSubscriptionA } from './repos/subscriptions.ts';

export const QUERIES = {
  conversionSummary: readConversionSummary,
  // The dashboard's Conversions screen: the summary and its days, in one snapshot; what its ids
  // are called (as many lookups as the summary has links).
  conversionSummaryWithSeries: readConversionSummaryWithSeries,
  conversionNames,
  goalTally: readGoalTally,
  linksPage: readLinksPage,
  // The dashboard's link list, a link's analytics, the CSV export.
  linkSearch: searchLinks,
  linkAnalytics: readLinkAnalytics,
  linksExportPage,
  retention: runRetention,
  // Counts a link's clicks by dimension and day apart from the click writer (click-folds.ts).
  clickFold: runClickFold,
  // Postgres: the raw events' day partitions ahead (event-partitions.ts).
  eventPartitions: ensureEventPartitions,
  // A Variant A subscription that starts the traffic alerts rebuilds 8 days of click windows.
  insertSubscription,
  updateSubscriptionA,
  // The public API's QR code list (GET /api/v1/qr-codes): a count and a page of a workspace's codes.
  qrCodesPage,
} satisfies Record<string, (knex: Knex, ...args: any[]) => Promise<unknown>>;

export type QueryName = keyof typeof QUERIES;
type Rest<F> = F extends (knex: Knex, ...args: infer A) => unknown ? A : never;
/** The queries with their Knex bound: what the API and the jobs call. */
export type Queries = { [K in QueryName]: (...args: Rest<(typeof QUERIES)[K]>) => ReturnType<(typeof QUERIES)[K]> };

/** The queries run on `knex` by the caller's thread (Postgres; SQLite in memory; the command line). */
export function inlineQueries(knex: Knex): Queries {
  const out: Record<string, unknown> = {};
  for (const [name, query] of Object.entries(QUERIES))
    out[name] = (...args: unknown[]) => (query as (k: Knex, ...a: unknown[]) => unknown)(knex, ...args);
  return out as Queries;
}
