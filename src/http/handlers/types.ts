import type { Context } from 'openapi-backend';
import type { AuthContext } from '../auth';

/** What an operation handler returns; the post-response handler checks it and sends it. */
export interface Result {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type OperationHandler = (c: Context, req: unknown, auth: AuthContext) => Promise<Result>;
