// Handlers are typed per operation from the contract (generated/api.ts): what a request carries
// (path and query parameters, headers, body) and what each success status answers. A handler
// that answers a field the contract does not have, misses a required one, or answers a status
// the operation does not declare fails `npm run typecheck` (test/types/handlers.ts shows it).
// Errors are thrown as AppError (src/domain/errors.ts), never returned.
import type { operations } from '../../../generated/api.ts';
import type { AuthContext } from '../auth.ts';
import type { AuditActor } from '../../domain/audit.ts';

export type OperationId = keyof operations;

/** A part of the request, or an empty object when the operation has none. */
type Part<T> = [T] extends [never]
  ? Record<string, never>
  : [T] extends [undefined]
    ? Record<string, never>
    : NonNullable<T>;
type JsonOf<T> = T extends { content: { 'application/json': infer B } }
  ? B
  : T extends { content: { 'text/plain': infer B } }
    ? B
    : undefined;

/** What a request of an operation (`Op`, of either contract) carries besides its body. */
export interface RequestParts<Op extends { parameters: { path?: unknown; query?: unknown } }> {
  params: Part<Op['parameters']['path']>;
  query: Part<Op['parameters']['query']>;
  /** Lower-case header names, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
}

export interface RequestOf<O extends OperationId> extends RequestParts<operations[O]> {
  body: operations[O] extends { requestBody: infer R }
    ? JsonOf<R>
    : operations[O] extends { requestBody?: infer R }
      ? JsonOf<R> | undefined
      : undefined;
}

type SuccessStatus = 200 | 201 | 202 | 204 | 207 | 302;
type Responses<O extends OperationId> = operations[O]['responses'];
type Success<O extends OperationId> = Extract<keyof Responses<O>, SuccessStatus>;

/** A success answer of the operation: one of its declared 2xx statuses with that status's body. */
export type ResultOf<O extends OperationId> = {
  [S in Success<O>]: JsonOf<Responses<O>[S]> extends undefined
    ? { status: S; body?: undefined; headers?: Record<string, string> }
    : { status: S; body: JsonOf<Responses<O>[S]>; headers?: Record<string, string> };
}[Success<O>];

export interface HandlerContext {
  /** The key's workspace, user, plan and scopes; only operations that need a key read it. */
  auth: AuthContext;
  /** X-Service-Request-Id of the request (webhook events carry it). */
  requestId: string | null;
  /** The client's address as the trusted proxy saw it (src/domain/client-address.ts). */
  client: string;
  /** The key and its owner, at the client's address, as the audit log names them. */
  audit: AuditActor;
}

export type OperationHandler<O extends OperationId> = (
  request: RequestOf<O>,
  ctx: HandlerContext,
) => Promise<ResultOf<O>>;

/** Every operation of the contract, each with its handler: a missing one fails the typecheck. */
export type Handlers = { [O in OperationId]: OperationHandler<O> };
