// Idempotency-Key rules shared by the operations that take one (POST /api/v1/conversions,
// POST /api/v1/links/bulk): how long a key is remembered, and which request bodies are the same.
import { createHash } from 'node:crypto';

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/** Canonical JSON (sorted keys) so that whitespace and key order do not make bodies differ. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as any)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The hash a repeat's body is compared by. `operationId` keeps a key used for one operation from
 * matching another's; the conversions' hashes (stored for 24 hours) were made without it.
 */
export function requestHash(body: unknown, operationId?: string): string {
  const text = canonical(body);
  return createHash('sha256')
    .update(operationId === undefined ? text : `${operationId}\n${text}`)
    .digest('hex');
}
