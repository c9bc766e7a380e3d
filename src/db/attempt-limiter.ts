// Limits on attempts counted in the database, so they hold across processes: wrong link
// passwords per link and client, wrong sign-in passwords per email and client. A fixed window per
// key (rate-limiter-flexible over the same Knex connection as everything else).
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from './knex.ts';
import { PgRateLimiter } from './pg-rate-limiter.ts';
import { SqliteRateLimiter } from './sqlite-rate-limiter.ts';

export function createAttemptLimiter(
  db: Database,
  keyPrefix: string,
  points: number,
  durationS: number,
): RateLimiterAbstract {
  const opts = {
    storeClient: db.knex,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    points,
    duration: durationS,
    keyPrefix,
    clearExpiredByTimeout: false,
  };
  return db.engine === 'postgres' ? new PgRateLimiter(opts) : new SqliteRateLimiter(opts as any);
}

/**
 * Takes one of the key's attempts before the check it guards: the seconds to wait when none is
 * left, else 0. Taking the slot first (rather than counting after a wrong answer) keeps the limit
 * exact when a client sends many guesses at once; `refundAttempt` gives the slot back after a
 * right answer, so only wrong ones use the allowance up.
 */
export async function takeAttempt(limiter: RateLimiterAbstract, key: string): Promise<number> {
  try {
    await limiter.consume(key, 1);
    return 0;
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
  }
}

export async function refundAttempt(limiter: RateLimiterAbstract, key: string): Promise<void> {
  await limiter.reward(key, 1);
}
