// Errors of the dashboard API as values the screens can show: the contract's `{ error, field? }`
// with the HTTP status, and the wait a 429 asks for.
import type { ErrorBody } from './types.ts';

export class ApiError extends Error {
  readonly status: number;
  /** The request field at fault (the API's name for it), when the answer names one. */
  readonly field: string | undefined;
  /** Seconds to wait, from Retry-After (429). */
  readonly retryAfter: number | undefined;

  constructor(status: number, message: string, field?: string, retryAfter?: number) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

const UNREACHABLE = 'The service could not be reached. Check your connection and try again.';

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';
}

function fromAnswer(response: Response, body: unknown): ApiError {
  const retry = Number(response.headers.get('Retry-After'));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : undefined;
  if (isErrorBody(body)) return new ApiError(response.status, body.error, body.field, retryAfter);
  const fallback =
    response.status >= 500
      ? `The service had a problem (${response.status}). Try again in a moment.`
      : `The service refused the request (${response.status}).`;
  return new ApiError(response.status, fallback, undefined, retryAfter);
}

/** What the typed client answers. */
export interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful answer of the typed client; an ApiError for any other. A 204 has no
 * data: its callers ask for `Promise<void>`-like results and ignore it.
 */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(0, UNREACHABLE);
  }
  if (answer.response.ok) return answer.data as T;
  throw fromAnswer(answer.response, answer.error);
}

/** Any thrown value as an ApiError (programming errors keep their message). */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof Error) return new ApiError(0, err.message);
  return new ApiError(0, String(err));
}

/** "Too many attempts. Try again in N minutes." from a 429's Retry-After, else its message. */
export function tooManyAttemptsMessage(err: ApiError): string {
  if (err.retryAfter === undefined) return err.message;
  const minutes = Math.max(1, Math.ceil(err.retryAfter / 60));
  return `Too many attempts. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}
