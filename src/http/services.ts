import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { Database } from '../db/knex.ts';
import type { Queries } from '../db/queries.ts';
import type { LinkCacheInvalidator } from '../redirect/cache.ts';
import type { Metrics } from './metrics.ts';

/** Everything a request handler may use, built once per process (or per test). */
export interface Services {
  config: Config;
  db: Database;
  /** The database work that grows with the data, off the event loop on SQLite (src/db/queries.ts). */
  queries: Queries;
  log: Logger;
  limiter: RateLimiterAbstract;
  linkCache: LinkCacheInvalidator;
  /** MASTER_KEY: encrypts stored webhook secrets, signs visitor-page tokens. */
  masterKey: Buffer;
  /** Wrong dashboard sign-in passwords, per email and client (src/db/attempt-limiter.ts). */
  signInThrottle: RateLimiterAbstract;
  /** DNS TXT lookups for domain verification (node:dns by default; tests answer their own). */
  resolveTxt: (name: string) => Promise<string[][]>;
  /** Certificates webhook deliveries trust besides the system's (tests; WEBHOOK_CA_FILE): test events use them too. */
  webhookCa?: string[];
  /** GET /metrics (src/http/metrics.ts). */
  metrics: Metrics;
  /** Clicks recorded and not yet written (GET /readyz fails above READY_MAX_CLICK_BACKLOG). */
  clickBacklog(): number;
}
