// rate-limiter-flexible's SQLite limiter writes through the Knex connection's own better-sqlite3
// statements, outside Knex's query path, so it would not wait for SQLite's write lock on a timer
// as every other write on the service's threads does (src/db/knex.ts, TimerWaitSqliteClient):
// with busy_timeout 0 its upsert would fail at once during a click flush. Its two writing steps
// are retried the same way. Reads never wait in WAL mode.
import { RateLimiterSQLite } from 'rate-limiter-flexible';
import { retryWhileSqliteBusy } from './knex.ts';

type Step = (...args: unknown[]) => Promise<unknown>;
const base = RateLimiterSQLite.prototype as unknown as { _upsert: Step; _delete: Step };

export class SqliteRateLimiter extends RateLimiterSQLite {
  _upsert(...args: unknown[]): Promise<unknown> {
    return retryWhileSqliteBusy(() => base._upsert.apply(this, args));
  }
  _delete(...args: unknown[]): Promise<unknown> {
    return retryWhileSqliteBusy(() => base._delete.apply(this, args));
  }
}
