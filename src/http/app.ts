// The Express app: request ids and logs, HTTPS-only API, body limits, and openapi-backend
// routing every API operation through one strict handler map keyed by operationId.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { OpenAPIBackend, type Context } from 'openapi-backend';
import addFormats from 'ajv-formats';
import { pinoHttp } from 'pino-http';
import { clientAddress } from '../domain/client-address.ts';
import { redactParams, redactUrl } from '../domain/log-redaction.ts';
import { authenticate, type AuthContext } from './auth.ts';
import { AppError, invalid, notFound, quoted, tooLarge } from '../domain/errors.ts';
import { errorAnswer, INTERNAL_ERROR } from './errors.ts';
import { validationError, withContractKeywords } from './validation.ts';
import { CHANGING_METHODS, preferFixedPaths } from './routing.ts';
import { contractFailureHandlers, contractRequest } from './contract-handlers.ts';
import { BULK_MAX_BODY_BYTES, BULK_PATH, bodyProblem, bodyTooLarge, MAX_BODY_BYTES } from './body.ts';
import { buildHandlers } from './handlers/index.ts';
import type { HandlerContext, OperationId, RequestOf, ResultOf } from './handlers/types.ts';
import { inlineRefs, loadDefinition } from './definition.ts';
import { servePublishedDocuments } from './published.ts';
import { createDashboard } from './dashboard/app.ts';
import type { Services } from './services.ts';
import { actorAt, auditAddressKey } from '../operations/audit.ts';

export { MAX_BODY_BYTES } from './body.ts';

/** pino-http's serialized request (pino-std-serializers), with the Express request as `raw`. */
interface LoggedRequest {
  raw: Request;
  url: string;
  query: unknown;
  params: unknown;
  headers?: Record<string, unknown>;
  remoteAddress?: string;
}

function requiredScopes(operation: any): string[] {
  const security = operation.security ?? [];
  return security.flatMap((req: Record<string, string[]>) => req.bearerAuth ?? []);
}

export async function createApp(services: Services, opts: { validateResponses?: boolean } = {}) {
  const { config, log } = services;
  const validateResponses = opts.validateResponses ?? process.env.SHORTLINK_VALIDATE_RESPONSES === '1';
  // Each place of the document with its own schema: Ajv's errors then name the place that failed.
  const definition = inlineRefs(loadDefinition());
  // A bulk call checks each of its items against the single operation's body schema. The
  // operation is looked up once: openapi-backend's getOperation flattens every path on each call.
  const operations = new Map<string, ReturnType<typeof api.router.getOperation>>();
  const handlers = buildHandlers(services, (operationId, body) => {
    let operation = operations.get(operationId);
    if (!operation) operations.set(operationId, (operation = api.router.getOperation(operationId)!));
    const check = api.validateRequest(
      { method: operation.method, path: operation.path, body, headers: { 'content-type': 'application/json' } },
      operation,
    );
    return check.errors?.length ? validationError(check.errors as any, operation as any, { requestBody: body }) : null;
  });

  const api = new OpenAPIBackend({
    definition,
    strict: true,
    // openapi-backend checks definitions against the 3.0 meta-schema; redocly lint checks our 3.1 one.
    quick: true,
    // `/api/v1/links/` is getLink with an empty id, which the contract refuses (minLength 1), not
    // the list: an empty path segment names no route (404).
    ignoreTrailingSlashes: false,
    validate: true,
    coerceTypes: true,
    customizeAjv: (ajv) => {
      addFormats.default ? addFormats.default(ajv as any) : (addFormats as any)(ajv);
      return withContractKeywords(ajv);
    },
  });
  const operationIds = new Set<string>();
  for (const p of Object.values<any>(definition.paths)) {
    for (const op of Object.values<any>(p)) if (op?.operationId) operationIds.add(op.operationId);
  }
  // The handler map's type already requires every operation of generated/api.ts; this also
  // catches a bundled document newer than the types.
  const missing = [...operationIds].filter((id) => !(id in handlers));
  if (missing.length) throw new Error(`No handler for operations: ${missing.join(', ')}`);

  /** openapi-backend's context as the typed request of the operation (src/http/handlers/types.ts). */
  const adapt = (id: OperationId) => (c: Context, req: Request) => {
    // openapi-backend validates a body only when one was parsed; a required one may be absent.
    if ((c.operation as any).requestBody?.required && (req.body === undefined || req.body === null)) {
      throw invalid('A JSON request body is required (Content-Type: application/json)');
    }
    const request = contractRequest<RequestOf<OperationId>>(c);
    const auth = (c.security as any)?.bearerAuth as AuthContext | undefined;
    const client = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], config.trustProxy);
    const ctx: HandlerContext = {
      auth: auth as AuthContext,
      requestId: req.id ? String(req.id) : null,
      client,
      audit: actorAt(
        auth ? { type: 'api_key', id: auth.keyId, userId: auth.userId } : { type: 'anonymous', id: null, userId: null },
        client,
        auditAddressKey(services.masterKey),
      ),
    };
    return (handlers[id] as (r: RequestOf<OperationId>, x: HandlerContext) => Promise<ResultOf<OperationId>>)(
      request,
      ctx,
    );
  };

  api.register({
    ...Object.fromEntries((Object.keys(handlers) as OperationId[]).map((id) => [id, adapt(id)])),
    ...contractFailureHandlers('api', (requestPath) => routes.allowed(requestPath)),
    postResponseHandler: (c: Context, req: Request, res: Response) => {
      const result = c.response as { status: number; body?: unknown; headers?: Record<string, string> };
      // The change is committed: the workspace's next heavy reads must see it (src/db/read-replicas.ts).
      const auth = (c.security as any)?.bearerAuth as AuthContext | undefined;
      if (auth && CHANGING_METHODS.has(req.method) && result.status < 400) services.reads.wrote(auth.workspaceId);
      if (validateResponses && c.operation && result.body !== undefined) {
        const check = api.validateResponse(result.body, c.operation, result.status);
        if (check.errors) {
          log.error(
            { operationId: c.operation.operationId, errors: check.errors },
            'response does not match the contract',
          );
          throw new Error(
            `Response of ${c.operation.operationId} violates the contract: ${JSON.stringify(check.errors)}`,
          );
        }
      }
      for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
      if (result.body === undefined) res.status(result.status).end();
      // A text answer (GET /metrics) is sent as it is.
      else if (typeof result.body === 'string' && /^text\//.test(String(res.getHeader('Content-Type') ?? '')))
        res.status(result.status).send(result.body);
      else res.status(result.status).json(result.body);
    },
  });
  // Filled by the key check that runs before the body is read (below).
  const authenticated = new WeakMap<Request, AuthContext>();
  api.registerSecurityHandler(
    'bearerAuth',
    (c: Context, req: Request) =>
      authenticated.get(req) ??
      authenticate(req, services.db.knex, services.limiter, requiredScopes(c.operation), services.keyUses),
  );
  await api.init();
  // A fixed path of the contract wins over a template for every method (src/http/routing.ts).
  const routes = preferFixedPaths(api.router);

  const app = express();
  app.disable('x-powered-by');
  // No ETags and no conditional requests: API answers are never 304.
  app.set('etag', false);
  app.use((req, _res, next) => {
    delete req.headers['if-none-match'];
    delete req.headers['if-modified-since'];
    next();
  });
  app.set('trust proxy', config.trustProxy);
  // At info (the default) a request is one short line: its method, address (tokens redacted),
  // status and time, with its id. Its headers, query and the client's address are written at
  // debug, and with any answer of 500 or more, where they help find the cause.
  const detailed = log.isLevelEnabled('debug');
  const requestLine = (req: Request, res: Response, ms: number) =>
    `${req.method} ${redactUrl(req.originalUrl ?? req.url)} ${res.statusCode} ${ms}ms`;
  app.use(
    pinoHttp({
      logger: log,
      quietReqLogger: !detailed,
      quietResLogger: !detailed,
      customSuccessMessage: (req, res, ms) => requestLine(req as Request, res as Response, ms),
      customErrorMessage: (req, res) =>
        `${req.method} ${redactUrl((req as Request).originalUrl ?? req.url)} ${res.statusCode} failed`,
      customSuccessObject: detailed ? undefined : (_req, _res, val) => ({ responseTime: val.responseTime }),
      customErrorObject: detailed ? undefined : (req, _res, _err, val) => ({ ...val, req }),
      genReqId: (_req, res) => {
        const id = randomUUID();
        res.setHeader('X-Service-Request-Id', id);
        return id;
      },
      // Keys and passwords never reach a log.
      redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
      serializers: {
        req: (req: LoggedRequest) => {
          // The client's address as the trusted proxy saw it, as everywhere (domain/client-address).
          req.remoteAddress = clientAddress(
            req.raw.socket.remoteAddress,
            req.raw.headers['x-forwarded-for'],
            config.trustProxy,
          );
          // One-time tokens stay valid until used: none is logged, in the address, its parsed
          // query and route parameters, or the Referer of a page opened with one.
          req.url = redactUrl(req.url);
          req.query = redactParams(req.query);
          req.params = redactParams(req.params);
          const referer = req.headers?.referer;
          if (typeof referer === 'string') req.headers = { ...req.headers, referer: redactUrl(referer) };
          return req;
        },
        res: (res: { headers?: Record<string, unknown> }) => {
          const location = res.headers?.location;
          if (typeof location === 'string') res.headers = { ...res.headers, location: redactUrl(location) };
          return res;
        },
      },
    }),
  );

  servePublishedDocuments(app, config.publicUrl);
  // Before the HTTPS and path checks: phones fetch these as they are, on the host they verify.
  app.use(services.wellKnown.serve);

  // Preview images and other hosted assets (`shortlink asset add`), under ASSET_BASE_URL.
  app.use(
    '/assets',
    express.static(path.join(config.dataDir, 'assets'), {
      index: false,
      dotfiles: 'deny',
      immutable: true,
      maxAge: '365d',
      // Hosted assets are operator-provided, but an SVG with a script must not run on the
      // service's origin: no scripts, no plugins, a unique origin.
      setHeaders: (res) => {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader(
          'Content-Security-Policy',
          "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
        );
      },
    }),
  );

  // HTTPS only: an API request that arrived over plain HTTP changes nothing.
  app.use('/api', (req, res, next) => {
    // API answers are per key and some carry secrets (a webhook's signing secret): no cache may
    // keep them, and no browser may sniff them into something other than JSON.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!req.secure) return next(invalid('HTTPS is required; this request arrived over plain HTTP'));
    next();
  });
  // A path that is not valid percent-encoding can name nothing.
  app.use((req, _res, next) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      return next(invalid('The URL path is not valid percent-encoding', 'id'));
    }
    if (/%00/.test(req.url) || req.url.includes('\u0000')) {
      const param = Object.entries(req.query).find(
        ([k, v]) => k.includes('\u0000') || String(v).includes('\u0000'),
      )?.[0];
      if (param === undefined) return next(invalid('The URL contains a NUL character', 'id'));
      return next(invalid(`The URL contains a NUL character in query parameter ${quoted(param)}`, param || undefined));
    }
    next();
  });

  // The dashboard and its API (src/http/dashboard/): sessions, not keys, and its own parsers.
  app.use('/app', await createDashboard(services));

  // WEBHOOK_VARIANTS: a variant switched off has no endpoints at all (404 before any key check).
  const variantOf = (p: string): 'A' | 'B' | null =>
    /^\/api\/v1\/webhooks(\/|$)/.test(p)
      ? 'B'
      : /^\/api\/(webhooks(\/|$)|public\/events\/schema$)/.test(p)
        ? 'A'
        : null;
  app.use((req, _res, next) => {
    const variant = variantOf(req.path);
    if (variant && !config.webhookVariants.has(variant))
      return next(notFound(`Webhook variant ${variant} is not offered by this deployment`));
    next();
  });

  // Who is asking comes before what was sent: an operation that needs a key checks it (401 for a
  // missing, invalid, revoked, expired or free-plan key, 429 once its 60 requests a minute are
  // spent, then 403 for the plan and scope) before its body is read, parsed or validated, so a
  // caller without a usable key learns nothing from the body check and spends nothing on it.
  // openapi-backend's security handler then takes this answer: each request is counted once.
  // The public operations (`security: []`) are not looked at here.
  app.use((req, _res, next) => {
    if (!req.path.startsWith('/api/')) return next();
    const operation = api.router.matchOperation({
      method: req.method,
      path: req.path,
      headers: req.headers as any,
      query: {},
    });
    const security: Array<Record<string, string[]>> = operation?.security ?? api.definition.security ?? [];
    if (!operation || !security.some((requirement) => 'bearerAuth' in requirement)) return next();
    authenticate(req, services.db.knex, services.limiter, requiredScopes(operation), services.keyUses).then((auth) => {
      authenticated.set(req, auth);
      next();
    }, next);
  });

  // Only methods that take a body parse one; a GET or DELETE body is ignored.
  const json = express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'] });
  const bulkJson = express.json({ limit: BULK_MAX_BODY_BYTES, type: ['application/json', 'application/*+json'] });
  app.use((req, res, next) => {
    if (req.method !== 'POST' && req.method !== 'PATCH' && req.method !== 'PUT') return next();
    (req.path === BULK_PATH ? bulkJson : json)(req, res, (err?: unknown) => {
      if (err) return next(err);
      // An empty body is no body (body-parser would make it {}).
      if (req.headers['content-length'] === '0') req.body = undefined;
      // Postgres text cannot hold U+0000, and no field of this API needs it or deep nesting.
      const problem = bodyProblem(req.body);
      if (problem) return next(invalid(problem.message, problem.field || undefined));
      next();
    });
  });
  app.use((req, res, next) => {
    api
      .handleRequest(
        {
          method: req.method,
          path: req.path,
          body: req.body,
          query: req.query as any,
          headers: req.headers as any,
        },
        req,
        res,
      )
      .catch(next);
  });

  // Every error is answered here, once: an AppError as the contract says, the body reader's
  // complaints as the client's 4xx, anything else as a 500 whose detail goes to the log only.
  app.use((err: any, req: Request, res: Response, _next: NextFunction) => {
    const known = asAppError(err);
    if (!known) req.log?.error({ err }, 'unhandled error');
    const answer = known ? errorAnswer(known) : INTERNAL_ERROR;
    for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
    res.status(answer.status).json(answer.body);
  });
  return app;
}

/** The body reader's (body-parser's) errors in the contract's vocabulary; null for a fault. */
function asAppError(err: any): AppError | null {
  if (err instanceof AppError) return err;
  // The limit of the reader that refused it: JSON's, an image upload's (src/http/dashboard/app.ts).
  if (err?.type === 'entity.too.large') {
    return Number.isFinite(err.limit) ? bodyTooLarge(err.limit) : tooLarge('Request body is too large');
  }
  if (err?.type === 'entity.parse.failed') return invalid('Malformed JSON in request body');
  if (err?.type === 'encoding.unsupported' || err?.type === 'charset.unsupported') return invalid(String(err.message));
  if (err?.type === 'request.aborted') return invalid('Request aborted');
  // Any other client error of the body reader (e.g. a body that does not inflate as its
  // Content-Encoding says) is the client's: 400, never a 500.
  if ((err?.status >= 400 && err?.status < 500) || /^Z_/.test(String(err?.code))) {
    return invalid(`The request body could not be read: ${String(err.message).slice(0, 200)}`);
  }
  return null;
}
