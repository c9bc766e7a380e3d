// The dashboard's handlers are typed per operation from its contract (generated/dashboard.ts),
// as the public API's are (src/http/handlers/types.ts): what a request carries and what each
// success status answers.
import type { IncomingMessage } from 'node:http';
import type { operations } from '../../../generated/dashboard.ts';
import type { Plan, Role } from '../../domain/access.ts';
import type { SessionRecord } from '../../db/repos/accounts.ts';
import type { RequestParts } from '../handlers/types.ts';
import type { AuditActor } from '../../domain/audit.ts';

export type DashboardOperationId = keyof operations;

/** The body of the first (only) media type of a request or response. */
type BodyOf<T> = T extends { content: infer C } ? C[keyof C] : undefined;

export interface DashboardRequest<O extends DashboardOperationId> extends RequestParts<operations[O]> {
  body: operations[O] extends { requestBody: infer R }
    ? BodyOf<R>
    : operations[O] extends { requestBody?: infer R }
      ? BodyOf<R> | undefined
      : undefined;
}

// 202: accepted for later (a reset mail); 303: a redirect the browser follows (single sign-on's callback).
type SuccessStatus = 200 | 201 | 202 | 204 | 303;
type Responses<O extends DashboardOperationId> = operations[O]['responses'];
type Success<O extends DashboardOperationId> = Extract<keyof Responses<O>, SuccessStatus>;

export type DashboardResult<O extends DashboardOperationId> = {
  [S in Success<O>]: BodyOf<Responses<O>[S]> extends undefined
    ? { status: S; body?: undefined; headers?: Record<string, string | string[]> }
    : { status: S; body: BodyOf<Responses<O>[S]>; headers?: Record<string, string | string[]> };
}[Success<O>];

/** The workspace of a request's path, as the signed-in person sees it. */
export interface WorkspaceContext {
  id: string;
  name: string;
  plan: Plan;
  role: Role;
  createdAt: number;
}

export interface DashboardContext {
  /** The session the cookie opened (undefined for the public operations: sign-in, set-up, first run). */
  session: SessionRecord | undefined;
  /** The path's workspace, when the operation has one (its membership already checked). */
  workspace: WorkspaceContext | undefined;
  requestId: string | null;
  /** The client's address as the trusted proxy saw it (src/domain/client-address.ts). */
  client: string;
  /** The signed-in person (or, before sign-in, nobody) at the client's address, for the audit log. */
  audit: AuditActor;
  /** The User-Agent header (a session keeps its browser and OS families). */
  userAgent: string | undefined;
  /** The browser cookie (sl_browser) the request carried, if any. */
  browserToken: string | undefined;
  /** The origin the request was addressed to (https://host), for the links a response names. */
  origin: string;
  /** The request's Cookie header (single sign-on's callback reads its sl_sso cookie). */
  cookie: string | undefined;
  /** The raw request body (the image upload reads its bytes). */
  rawBody: unknown;
  /** The request, when its body is left for the handler to read as it arrives (a CSV file). */
  bodyStream: IncomingMessage | undefined;
}

export type DashboardHandler<O extends DashboardOperationId> = (
  request: DashboardRequest<O>,
  ctx: DashboardContext,
) => Promise<DashboardResult<O>>;

/** Every operation of the dashboard's contract, each with its handler. */
export type DashboardHandlers = { [O in DashboardOperationId]: DashboardHandler<O> };
