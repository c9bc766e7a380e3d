// What the operations use, built once per process (or per test). The HTTP layer's Services
// (src/http/services.ts) extends it with what only requests need.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/knex.ts';
import type { Queries } from '../db/queries.ts';
import type { LinkCacheInvalidator } from '../redirect/cache.ts';
import type { PlaceLookup } from '../domain/routing.ts';

export interface OperationServices {
  config: Config;
  db: Database;
  /** The database work that grows with the data, off the event loop on SQLite (src/db/queries.ts). */
  queries: Queries;
  log: Logger;
  linkCache: LinkCacheInvalidator;
  /** MASTER_KEY: encrypts stored webhook secrets, signs visitor-page tokens. */
  masterKey: Buffer;
  /** IP-location data (platform/geo.ts), for routing's `city` conditions and "Try a visit". */
  geo?: PlaceLookup;
}
