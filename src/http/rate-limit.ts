// 60 requests per minute per API key, shared by every endpoint and, on Postgres, by every
// process using the database. rate-limiter-flexible keeps a fixed 60-second window per key.
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { PgRateLimiter } from '../db/pg-rate-limiter.ts';
import { SqliteRateLimiter } from '../db/sqlite-rate-limiter.ts';
import type { Database } from '../db/knex.ts';
import { rateLimited } from '../domain/errors.ts';

export const REQUESTS_PER_MINUTE = 60;

export function createRateLimiter(db: Database): RateLimiterAbstract {
  const opts = {
    storeClient: db.knex,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    points: REQUESTS_PER_MINUTE,
    duration: 60,
    keyPrefix: 'api',
    clearExpiredByTimeout: false,
  };
  return db.engine === 'postgres' ? new PgRateLimiter(opts) : new SqliteRateLimiter(opts as any);
}

/** Counts one request for the key; over the limit it throws the 429 with its headers. */
export async function consumeRequest(limiter: RateLimiterAbstract, keyId: string): Promise<void> {
  try {
    await limiter.consume(keyId, 1);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    const resetSeconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    throw rateLimited(
      `Rate limit of ${REQUESTS_PER_MINUTE} requests per minute exceeded; retry in ${resetSeconds} seconds`,
      {
        limit: REQUESTS_PER_MINUTE,
        remaining: Math.max(0, err.remainingPoints),
        resetSeconds,
      },
    );
  }
}
