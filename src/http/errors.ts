// How an error is answered over HTTP: an AppError (src/domain/errors.ts) with its status, the
// contract's `{ error, field?, code? }` body and the headers its details call for; any other
// error is a fault and answers 500 without its message.
import { AppError, ERROR_CODES } from '../domain/errors.ts';

export interface ErrorAnswer {
  status: number;
  body: { error: string; field?: string; code?: string };
  headers: Record<string, string>;
}

export function errorAnswer(err: AppError): ErrorAnswer {
  const d = err.details;
  const headers: Record<string, string> = {};
  if (d.rateLimit) {
    headers['X-RateLimit-Limit'] = String(d.rateLimit.limit);
    headers['X-RateLimit-Remaining'] = String(d.rateLimit.remaining);
    headers['X-RateLimit-Reset'] = String(d.rateLimit.resetSeconds);
  }
  if (d.retryAfterSeconds !== undefined) headers['Retry-After'] = String(d.retryAfterSeconds);
  if (d.allow) headers.Allow = d.allow.join(', ');
  return {
    status: ERROR_CODES[err.code].status,
    body: {
      error: err.message,
      ...(d.field !== undefined ? { field: d.field } : {}),
      ...(d.publicCode ? { code: d.publicCode } : {}),
    },
    headers,
  };
}

export const INTERNAL_ERROR: ErrorAnswer = { status: 500, body: { error: 'Internal server error' }, headers: {} };
export { AppError };
