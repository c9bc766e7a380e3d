// `import { createClient } from 'shortlink/client'`: a thin, typed client of Shortlink's public API.
// Every path, parameter, body and answer is typed by openapi-fetch from the types generated out of
// openapi/openapi.yaml (generated/api.ts); nothing here restates them. What it adds is what a
// partner would otherwise write around every call: the key, retries, idempotency for recorded
// conversions, paging, and errors as values.
//
//   const shortlink = createClient({ baseUrl: 'https://sho.rt', key: process.env.SHORTLINK_KEY! });
//   const made = await shortlink.POST('/api/v1/links', { body: { url: 'https://example.com', slug: 'hello' } });
//   if (made.error) console.error(made.error.status, made.error.error, made.error.field);
//   for await (const link of shortlink.allLinks()) console.log(link.slug, link.clicks);
//
// Retries (`retries`, default 3, with exponential backoff and jitter):
//   - 429: always, after the `Retry-After` the service sent (a rate-limited request did nothing);
//   - 5xx and network errors: only for requests that are safe to repeat: GET, HEAD and PUT (which
//     replaces a whole document, so sending it twice leaves what sending it once does), and
//     `POST /api/v1/conversions` and `POST /api/v1/links/bulk`, which get an `Idempotency-Key` (a
//     random UUID, the same on every retry) unless the caller gave one, so a retry answers the
//     first response.
// Other requests are sent once: repeating a create or a change the service may already have made
// is the caller's decision.
import createOpenApiClient, { type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
// `.js`: the published declarations (tsconfig.client.json) name the compiled file, which a
// consumer's TypeScript resolves to the declarations built beside it (dist/generated/api.d.ts).
import type { components, paths } from '../../generated/api.js';

export type { components, paths };
export type Link = components['schemas']['Link'];
/** The filters and order of `GET /api/v1/links` (`search`, `tagId`, `domainId`, `status`, `sort`). */
export type LinkListFilters = Omit<NonNullable<paths['/api/v1/links']['get']['parameters']['query']>, 'page' | 'limit'>;
export type LinkCreate = components['schemas']['LinkCreate'];
export type LinkBulkChanges = components['schemas']['LinkBulkChanges']['changes'];

/** A failure as a value: the HTTP status (0 when no answer came) and the service's `{ error, field?, code? }`. */
export interface ShortlinkError {
  status: number;
  error: string;
  field?: string;
  code?: string;
  /** Seconds the service asked to wait (429, 503), when it said. */
  retryAfterSeconds?: number;
}

export interface ClientOptions {
  /** The service's address (its PUBLIC_URL), e.g. https://sho.rt. */
  baseUrl: string;
  /** An API key (`mk_` and 64 hexadecimal characters). */
  key: string;
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** The first backoff (default 250 ms), doubling per retry up to `maxDelayMs` (default 8 s), with jitter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A 429 asking to wait longer than this (default 60 s) is returned instead of waited for. */
  maxRetryAfterMs?: number;
  /** The fetch to use (default the global one): a custom one for another TLS trust store, a proxy, tests. */
  fetch?: (input: Request) => Promise<Response>;
  /** Headers sent with every request (besides Authorization). */
  headers?: Record<string, string>;
  /** How to wait (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'PUT']);
const CONVERSIONS_PATH = '/api/v1/conversions';
const BULK_LINKS_PATH = '/api/v1/links/bulk';
/** POSTs whose every retry carries one Idempotency-Key, so the service answers the first response. */
const IDEMPOTENT_POSTS = [CONVERSIONS_PATH, BULK_LINKS_PATH];

/** Whether a failed attempt of this request may be sent again (5xx, network error). */
function safeToRepeat(request: Request): boolean {
  return SAFE_METHODS.has(request.method) || request.headers.has('Idempotency-Key');
}

function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('Retry-After');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/** A fetch that adds the key, the Idempotency-Key of IDEMPOTENT_POSTS, and retries (see the top of this file). */
function retryingFetch(
  o: Required<Pick<ClientOptions, 'retries' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterMs' | 'sleep'>> &
    Pick<ClientOptions, 'fetch'>,
) {
  const send = o.fetch ?? ((r: Request) => globalThis.fetch(r));
  const backoff = (attempt: number) => {
    const ceiling = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  };
  return async (input: Request): Promise<Response> => {
    let request = input;
    if (
      request.method === 'POST' &&
      IDEMPOTENT_POSTS.some((p) => new URL(request.url).pathname.endsWith(p)) &&
      !request.headers.has('Idempotency-Key')
    ) {
      const headers = new Headers(request.headers);
      headers.set('Idempotency-Key', crypto.randomUUID());
      request = new Request(request, { headers });
    }
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= o.retries;
      let response: Response;
      try {
        // Each attempt sends its own copy: a body can be read once.
        response = await send(last ? request : request.clone());
      } catch (err) {
        if (last || !safeToRepeat(request)) throw err;
        await o.sleep(backoff(attempt));
        continue;
      }
      if (last) return response;
      if (response.status === 429) {
        const wait = retryAfterMs(response) ?? backoff(attempt);
        if (wait > o.maxRetryAfterMs) return response;
        await response.body?.cancel();
        await o.sleep(wait);
        continue;
      }
      if (response.status >= 500 && safeToRepeat(request)) {
        await response.body?.cancel();
        await o.sleep(backoff(attempt));
        continue;
      }
      return response;
    }
  };
}

type OpenApiClient = ReturnType<typeof createOpenApiClient<paths>>;

/** What a call answers: the path's success body, or a ShortlinkError (status 0: no answer). */
export type Outcome<R> =
  | { data: SuccessData<R>; error?: undefined; response: Response }
  | { data?: undefined; error: ShortlinkError; response?: Response };
/** The success member's body of openapi-fetch's answer (its error member has no `data`). */
type SuccessData<R> = R extends { data: infer D } ? D : never;

// openapi-fetch's own signature of a method (ClientMethod), answering an Outcome instead.
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type Method<M extends HttpMethod> = <
  Path extends PathsWithMethod<paths, M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Outcome<FetchResponse<paths[Path][M] & Record<string | number, any>, Init, `${string}/${string}`>>>;

function asError(error: unknown, response: Response | undefined): ShortlinkError {
  const body = (error && typeof error === 'object' ? error : {}) as {
    error?: unknown;
    field?: unknown;
    code?: unknown;
  };
  const retryAfter = response ? retryAfterMs(response) : undefined;
  return {
    status: response?.status ?? 0,
    error:
      typeof body.error === 'string'
        ? body.error
        : typeof error === 'string' && error
          ? error
          : `HTTP ${response?.status ?? 'no answer'}`,
    ...(typeof body.field === 'string' ? { field: body.field } : {}),
    ...(typeof body.code === 'string' ? { code: body.code } : {}),
    ...(retryAfter !== undefined ? { retryAfterSeconds: Math.ceil(retryAfter / 1000) } : {}),
  };
}

export function createClient(options: ClientOptions) {
  const api: OpenApiClient = createOpenApiClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, Authorization: `Bearer ${options.key}` },
    fetch: retryingFetch({
      retries: options.retries ?? 3,
      baseDelayMs: options.baseDelayMs ?? 250,
      maxDelayMs: options.maxDelayMs ?? 8_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      fetch: options.fetch,
    }),
  });

  /** One of openapi-fetch's methods, its error made a ShortlinkError and a network failure a value. */
  function method<M extends HttpMethod>(name: Uppercase<M>): Method<M> {
    const call = api[name as 'GET'] as unknown as (
      ...a: unknown[]
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    return (async (...args: unknown[]) => {
      try {
        const result = await call(...args);
        if (result.response.ok) return { data: result.data, response: result.response };
        return { error: asError(result.error, result.response), response: result.response };
      } catch (err) {
        return {
          error: {
            status: 0,
            error: `no answer from ${options.baseUrl}: ${(err as Error)?.message ?? String(err)}`,
            code: 'network_error',
          } satisfies ShortlinkError,
        };
      }
    }) as unknown as Method<M>;
  }
  const GET = method<'get'>('GET');
  const POST = method<'post'>('POST');
  const PATCH = method<'patch'>('PATCH');
  const DELETE = method<'delete'>('DELETE');
  const byId = (id: string) => ({ params: { path: { id } } });

  return {
    /** `GET`, `POST`, `PUT`, `PATCH`, `DELETE` of every path of the API, typed, errors as values. */
    GET,
    POST,
    PUT: method<'put'>('PUT'),
    PATCH,
    DELETE,
    /** The underlying openapi-fetch client, for what the methods above do not cover (middleware). */
    raw: api,

    /**
     * Creates 1 to 100 links in one request (`POST /api/v1/links/bulk`): a result per item, in
     * order, each a 201 with its link or the error a single create would give. The request carries
     * an Idempotency-Key (`idempotencyKey`, else a random one), so a retry never makes a link twice.
     */
    createLinks(links: LinkCreate[], opts: { idempotencyKey?: string } = {}) {
      return POST(BULK_LINKS_PATH, {
        body: { links },
        ...(opts.idempotencyKey ? { params: { header: { 'Idempotency-Key': opts.idempotencyKey } } } : {}),
      });
    },

    /** Applies one change (PATCH's fields but `slug`) to 1 to 100 links: a result per id, in order. */
    updateLinks(ids: string[], changes: LinkBulkChanges) {
      return PATCH(BULK_LINKS_PATH, { body: { ids, changes } });
    },

    /** Deletes 1 to 100 links: a result per id, in order (an id named twice is a 404 the second time). */
    deleteLinks(ids: string[]) {
      return DELETE(BULK_LINKS_PATH, { params: { query: { ids: ids.join(',') } } });
    },

    /**
     * Every link of the workspace, newest first, page after page (`limit` per request, at most
     * 100), or only those matching the filters given, in their order. A link made while paging
     * shifts the rows after it to the next page: a link already given is not given again. A
     * failed page throws its ShortlinkError.
     */
    async *allLinks(opts: { limit?: number } & LinkListFilters = {}): AsyncGenerator<Link, void, undefined> {
      const { limit = 100, ...filters } = opts;
      const seen = new Set<string>();
      for (let page = 1; ; page++) {
        const res = await GET('/api/v1/links', { params: { query: { ...filters, page, limit } } });
        if (res.error) throw Object.assign(new Error(res.error.error), res.error);
        const body = res.data;
        for (const link of body.data) {
          if (seen.has(link.id)) continue;
          seen.add(link.id);
          yield link;
        }
        // A capped total (filters, more than 10,000 matches) is a floor: only a short page ends.
        if (body.data.length < limit || (!body.meta.totalCapped && page * limit >= body.meta.total)) return;
      }
    },

    // Tags, QR codes and custom domains: one method per operation, each the call above it names.
    /** `GET /api/v1/tags`: every tag of the workspace, by name. */
    listTags: () => GET('/api/v1/tags'),
    /** `POST /api/v1/tags`: a name the workspace has is a 409. */
    createTag: (body: components['schemas']['TagCreate']) => POST('/api/v1/tags', { body }),
    /** `PATCH /api/v1/tags/{id}`. */
    updateTag: (id: string, body: components['schemas']['TagUpdate']) =>
      PATCH('/api/v1/tags/{id}', { ...byId(id), body }),
    /** `DELETE /api/v1/tags/{id}`: the tag leaves its links, with no `link.updated` event. */
    deleteTag: (id: string) => DELETE('/api/v1/tags/{id}', byId(id)),
    /** `GET /api/v1/qr-codes`: one page, newest first, optionally of one link. */
    listQrCodes: (query: { page?: number; limit?: number; linkId?: string } = {}) =>
      GET('/api/v1/qr-codes', { params: { query } }),
    /** `POST /api/v1/qr-codes`: a new QR code of the link. */
    createQrCode: (linkId: string) => POST('/api/v1/qr-codes', { body: { linkId } }),
    /** `GET /api/v1/qr-codes/{id}`. */
    getQrCode: (id: string) => GET('/api/v1/qr-codes/{id}', byId(id)),
    /** `DELETE /api/v1/qr-codes/{id}`: its scans answer 404 from then on. */
    deleteQrCode: (id: string) => DELETE('/api/v1/qr-codes/{id}', byId(id)),
    /** `GET /api/v1/domains`: the workspace's custom domains and their status. */
    listDomains: () => GET('/api/v1/domains'),
  };
}

export type ShortlinkClient = ReturnType<typeof createClient>;
