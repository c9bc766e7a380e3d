// rate-limiter-flexible's Postgres limiter names its statements (`rate_limits:rlflx-upsert`, ...):
// pg prepares a named statement once per connection and afterwards only binds it. Behind a
// connection pooler in transaction mode (PgBouncer before 1.21, docs/operations.md) the next
// statement runs on whichever server connection is free, where that name was never prepared
// (or was prepared by another client): every limited request would fail. Its statements go
// unnamed here, parsed each time, which works on any connection (tens of microseconds of
// the server's CPU each).
import { RateLimiterPostgres } from 'rate-limiter-flexible';

type Query = (q: { name?: string; text: string; values?: unknown[] }) => Promise<unknown>;
const base = RateLimiterPostgres.prototype as unknown as { _query: Query };

export class PgRateLimiter extends RateLimiterPostgres {
  _query(q: { name?: string; text: string; values?: unknown[] }): Promise<unknown> {
    return base._query.call(this, { text: q.text, values: q.values });
  }
}
