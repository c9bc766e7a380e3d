// The dashboard at /app/: its API (/app/api, openapi/dashboard.yaml, routed and validated by
// its own openapi-backend instance) and the single-page app built into dist/web. Opened by a
// session cookie only: an API key opens nothing here, and a session opens nothing of /api/v1.
import { timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import express, { type Request, type Response } from 'express';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Context } from 'openapi-backend';
import { findSession, touchSession, type SessionRecord } from '../../db/repos/accounts.ts';
import { restrictionOf } from '../../db/repos/second-factors.ts';
import { getWorkspace, roleOf } from '../../db/repos/workspaces.ts';
import type { Role } from '../../domain/access.ts';
import { clientAddress } from '../../domain/client-address.ts';
import { forbidden, invalid, notFound, unauthenticated, unavailable } from '../../domain/errors.ts';
import { BROWSER_COOKIE, SESSION_COOKIE, SESSION_TOUCH_MS } from '../../domain/sessions.ts';
import { projectPath } from '../../platform/project-root.ts';
import { parseCookies } from '../../redirect/password.ts';
import { bodyProblem, MAX_BODY_BYTES } from '../body.ts';
import type { Services } from '../services.ts';
import { withContractKeywords } from '../validation.ts';
import { inlineRefs } from '../definition.ts';
import { CHANGING_METHODS, preferFixedPaths } from '../routing.ts';
import { secondFactorRequired } from '../../operations/second-factors.ts';
import { contractFailureHandlers, contractRequest } from '../contract-handlers.ts';
import { dashboardHandlers } from './handlers/index.ts';
import { sessionCookie, WROTE_COOKIE, wroteCookie } from './session.ts';
import { sameOrigin } from './origin.ts';
import { BIO_PAGE_STYLE_HASHES } from '../../redirect/bio-page.ts';
import { findSharedReport, mayBeIndexed } from './shared-reports.ts';
import { actorAt, auditAddressKey } from '../../operations/audit.ts';
import type {
  DashboardContext,
  DashboardOperationId,
  DashboardRequest,
  DashboardResult,
  WorkspaceContext,
} from './types.ts';

export const ASSET_MAX_BYTES = 2 * 2 ** 20;
const WEB_ROOT = projectPath('dist/web');
const UNSAFE = CHANGING_METHODS;

/**
 * The single-page app may load only its own files and talk only to its own origin. The bio page
 * editor's live preview is a sandboxed srcdoc frame, which inherits this policy: its one inline
 * stylesheet, a theme's, is allowed by hash (src/redirect/bio-page.ts), no other inline style.
 * Images may also come from the hosted assets' origin (ASSET_BASE_URL, PUBLIC_URL/assets/ by
 * default: another host when configured so), where uploaded previews and avatars live.
 */
export function appCsp(assetBaseUrl: string): string {
  let assets = '';
  try {
    assets = ` ${new URL(assetBaseUrl).origin}`;
  } catch {
    // A malformed ASSET_BASE_URL is refused by the configuration; nothing more to allow here.
  }
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' ${BIO_PAGE_STYLE_HASHES.join(' ')}`,
    `img-src 'self' data: blob:${assets}`,
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function loadDashboardDefinition(): any {
  return JSON.parse(fs.readFileSync(projectPath('generated/dashboard.json'), 'utf8'));
}

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export async function createDashboard(services: Services): Promise<express.Router> {
  const { knex } = services.db;
  // Each place of the document with its own schema: Ajv's errors then name the place that failed.
  const definition = inlineRefs(loadDashboardDefinition());
  const handlers = dashboardHandlers(services);
  // As the public API's (src/http/app.ts): the tests check every answer against the contract.
  const validateResponses = process.env.SHORTLINK_VALIDATE_RESPONSES === '1';
  const api = new OpenAPIBackend({
    definition,
    strict: true,
    quick: true,
    validate: true,
    coerceTypes: true,
    apiRoot: '/',
    customizeAjv: (ajv) => {
      addFormats.default ? addFormats.default(ajv as any) : (addFormats as any)(ajv);
      return withContractKeywords(ajv);
    },
  });

  /** What the signed-in person may reach of the path's workspace; 404 for one they are not in. */
  async function workspaceOf(workspaceId: string, userId: string): Promise<WorkspaceContext> {
    const [role, ws] = await Promise.all([roleOf(knex, workspaceId, userId), getWorkspace(knex, workspaceId)]);
    if (!role || !ws) throw notFound('Workspace not found');
    return {
      id: ws.id,
      name: ws.name,
      plan: ws.plan,
      role,
      createdAt: Number((ws as { created_at?: number }).created_at ?? 0),
    };
  }

  const adapt = (id: DashboardOperationId) => async (c: Context, req: Request) => {
    const operation = c.operation as any;
    // A body of a type the operation does not take (JSON sent to the CSV import) is no body.
    const accepted = Object.keys(operation.requestBody?.content ?? {});
    const sentType = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    const sent = streamed.has(req) || (req.body !== undefined && req.body !== null);
    const wrongType = sent && accepted.length > 0 && !accepted.includes(sentType);
    if (operation.requestBody?.required && (wrongType || !sent)) {
      throw invalid(
        `A request body is required (Content-Type: ${Object.keys(operation.requestBody.content).join(' or ')})`,
      );
    }
    // Filled by the security handler (below): the session, and the path's workspace as it sees it.
    const { session, workspace } = ((c.security as any)?.session ?? {}) as {
      session?: SessionRecord;
      workspace?: WorkspaceContext;
    };
    const request = contractRequest<DashboardRequest<DashboardOperationId>>(c);
    const client = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], services.config.trustProxy);
    const ctx: DashboardContext = {
      session,
      workspace,
      requestId: req.id ? String(req.id) : null,
      client,
      audit: actorAt(
        session
          ? { type: 'user', id: session.userId, userId: session.userId }
          : { type: 'anonymous', id: null, userId: null },
        client,
        auditAddressKey(services.masterKey),
      ),
      userAgent: req.headers['user-agent'],
      browserToken: parseCookies(req.headers.cookie)[BROWSER_COOKIE],
      origin: originOf(req),
      cookie: req.headers.cookie,
      rawBody: req.body,
      bodyStream: streamed.has(req) ? req : undefined,
    };
    return (handlers[id] as (r: typeof request, x: DashboardContext) => Promise<DashboardResult<DashboardOperationId>>)(
      request,
      ctx,
    );
  };

  api.register({
    ...Object.fromEntries((Object.keys(handlers) as DashboardOperationId[]).map((id) => [id, adapt(id)])),
    ...contractFailureHandlers('dashboard', (requestPath) => routes.allowed(requestPath)),
    postResponseHandler: (c: Context, req: Request, res: Response) => {
      const result = c.response as { status: number; body?: unknown; headers?: Record<string, string | string[]> };
      if (
        validateResponses &&
        c.operation &&
        result.body !== undefined &&
        typeof result.body === 'object' &&
        !Buffer.isBuffer(result.body) &&
        !(Symbol.asyncIterator in (result.body as object))
      ) {
        const check = api.validateResponse(result.body, c.operation, result.status);
        if (check.errors)
          throw new Error(
            `Response of ${c.operation.operationId} violates the dashboard contract: ${JSON.stringify(check.errors)}`,
          );
      }
      for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
      // The change is committed: the next heavy reads of its workspace, and of this session on
      // any instance, must see it (src/db/read-replicas.ts).
      const asker = (c.security as any)?.session as
        | { session?: SessionRecord; workspace?: WorkspaceContext }
        | undefined;
      if (asker?.session && UNSAFE.has(req.method) && result.status < 400) {
        const at = services.reads.wrote(asker.workspace?.id);
        if (services.reads.rememberMs > 0) res.append('Set-Cookie', wroteCookie(at, services.reads.rememberMs));
      }
      const body = result.body as any;
      if (body && typeof body[Symbol.asyncIterator] === 'function') {
        // A streamed answer (the CSV export): a failure part-way can only cut the download short.
        res.status(result.status);
        Readable.from(body)
          .on('error', (err) => {
            services.log.error({ err, operationId: c.operation?.operationId }, 'streamed answer failed part-way');
            res.destroy(err);
          })
          .pipe(res);
        return;
      }
      if (result.body === undefined) res.status(result.status).end();
      else if (typeof result.body === 'string' || Buffer.isBuffer(result.body))
        res.status(result.status).send(result.body);
      else res.status(result.status).json(result.body);
    },
  });
  // Who is asking comes before what was sent, as in the public API: the session (401), the
  // anti-forgery token on a change (403), the workspace of the path (404 for one the person is
  // not in) and the role the operation needs (403), all before the body is read (below) or
  // validated. The answer is kept per request for openapi-backend's security handler.
  async function whoIsAsking(
    operation: any,
    params: Record<string, string>,
    req: Request,
    res: Response,
  ): Promise<{ session: SessionRecord; workspace?: WorkspaceContext }> {
    const token = parseCookies(req.headers.cookie)[SESSION_COOKIE];
    if (!token) throw unauthenticated('Sign in first');
    const now = Date.now();
    const session = await findSession(knex, token, now);
    if (!session) throw unauthenticated('Your session has ended; sign in again');
    // Sliding: each use moves the end to 14 days later (written at most every SESSION_TOUCH_MS).
    // The cookie is sent again with the new end, or the browser would drop it 14 days after sign-in.
    if (now - session.lastUsedAt >= SESSION_TOUCH_MS) {
      session.expiresAt = await touchSession(knex, session.id, now);
      res.setHeader('Set-Cookie', sessionCookie(token));
    }
    if (UNSAFE.has(req.method)) {
      // Anti-forgery: the session's token in a header no other site can set, and no other origin.
      const sent = req.headers['x-csrf-token'];
      if (typeof sent !== 'string' || !sameSecret(sent, session.csrfToken)) {
        throw forbidden("This request did not carry the session's anti-forgery token (X-CSRF-Token)");
      }
      const origin = req.headers.origin;
      if (origin && !sameOrigin(origin, originOf(req))) throw forbidden(`Requests from ${origin} are not accepted`);
    }
    // A workspace's requirement holds a person without a second factor to enrolling: only the
    // operations the contract marks x-before-second-factor answer until they have one.
    if (operation['x-before-second-factor'] !== true) {
      const holding = await restrictionOf(knex, session.userId);
      if (holding.length > 0) throw secondFactorRequired(holding);
    }
    const workspace = params.workspaceId ? await workspaceOf(params.workspaceId, session.userId) : undefined;
    const roles = operation['x-roles'];
    if (workspace && Array.isArray(roles) && !roles.includes(workspace.role)) {
      throw forbidden(
        `Your role in this workspace (${workspace.role}) may not do this: ${String(operation.summary).toLowerCase()} needs ${roleList(roles)}`,
      );
    }
    return { session, workspace };
  }
  const asked = new WeakMap<Request, { session: SessionRecord; workspace?: WorkspaceContext }>();
  api.registerSecurityHandler(
    'session',
    async (c: Context, req: Request, res: Response) =>
      asked.get(req) ?? whoIsAsking(c.operation, (c.request.params ?? {}) as Record<string, string>, req, res),
  );
  await api.init();
  // A fixed path of the contract wins over a template for every method (src/http/routing.ts).
  const routes = preferFixedPaths(api.router);

  const router = express.Router();
  const json = express.json({ limit: MAX_BODY_BYTES, type: ['application/json'] });
  // A CSV file is read by its operation as it arrives (the import: ./link-import.ts), which
  // refuses it part-way by its size or row count; here it is only marked as sent.
  const streamed = new WeakSet<Request>();
  const image = express.raw({ limit: ASSET_MAX_BYTES, type: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] });

  router.use('/api', (req, res, next) => {
    // Answers are per person and some carry secrets (an API key, a set-up link).
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!req.secure) return next(invalid('HTTPS is required; this request arrived over plain HTTP'));
    // An API key never opens the dashboard.
    if (req.headers.authorization) return next(unauthenticated('The dashboard API takes a session, not an API key'));
    // A change this session made, here or on another instance, that its reads must see.
    const wrote = Number(parseCookies(req.headers.cookie)[WROTE_COOKIE]);
    if (Number.isSafeInteger(wrote) && wrote > 0) return services.reads.afterWrite(wrote, () => admit(req, res, next));
    admit(req, res, next);
  });
  function admit(req: Request, res: Response, next: express.NextFunction) {
    const read = () => {
      if (!UNSAFE.has(req.method)) return next();
      readBody(req, res, next);
    };
    const routed = { method: req.method, path: req.path, headers: req.headers as any, query: {} };
    const operation = api.router.matchOperation(routed) as any;
    const isPublic = Array.isArray(operation?.security) && operation.security.length === 0;
    if (!operation || isPublic) return read();
    let params: Record<string, string>;
    try {
      params = (api.router.parseRequest(routed, operation).params ?? {}) as Record<string, string>;
    } catch (err) {
      return next(err);
    }
    whoIsAsking(operation, params, req, res).then((answer) => {
      asked.set(req, answer);
      read();
    }, next);
  }
  function readBody(req: Request, res: Response, next: express.NextFunction) {
    if (req.is('text/csv')) {
      if (req.headers['content-length'] !== '0') streamed.add(req);
      return next();
    }
    const parse = req.is('image/*') ? image : json;
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (req.headers['content-length'] === '0') req.body = undefined;
      if (req.is('application/json')) {
        const problem = bodyProblem(req.body);
        if (problem) return next(invalid(problem.message, problem.field || undefined));
      }
      next();
    });
  }
  router.use('/api', (req, res, next) => {
    const binary = Buffer.isBuffer(req.body);
    api
      .handleRequest(
        {
          method: req.method,
          path: req.path,
          // An image's bytes, or a file still arriving, are not a JSON value for the schema to
          // check: the handler reads them.
          body: binary ? `(${req.body.length} bytes)` : streamed.has(req) ? '(read as it arrives)' : req.body,
          query: req.query as any,
          headers: req.headers as any,
        },
        req,
        res,
      )
      .catch(next);
  });

  // The single-page app: its hashed files for a year, index.html for every other path (the app
  // routes in the browser), with a policy that lets it load nothing from anywhere else.
  const csp = appCsp(services.config.assetBaseUrl);
  router.use(
    express.static(WEB_ROOT, {
      index: false,
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => securityHeaders(res, csp),
    }),
  );
  // A shared report's page: the app's page, with the status and robots rules of the report
  // (openapi/dashboard.yaml, Reports): 404 when the token opens nothing readable now, so a
  // crawler drops the address; noindex, in a header and a meta, unless the report is PUBLIC
  // without a password.
  router.get('/shared/:token', async (req, res, next) => {
    const index = `${WEB_ROOT}/index.html`;
    if (!fs.existsSync(index))
      return next(unavailable('The dashboard is not built; run npm run build:web', 'dashboard_unavailable'));
    let found: Awaited<ReturnType<typeof findSharedReport>>;
    try {
      found = await findSharedReport(services, String(req.params.token));
    } catch (err) {
      return next(err);
    }
    const indexable = !!found && mayBeIndexed(found.row);
    let html = fs.readFileSync(index, 'utf8');
    if (!indexable) {
      res.setHeader('X-Robots-Tag', 'noindex');
      html = html.replace(/<head>/i, '<head><meta name="robots" content="noindex">');
    }
    securityHeaders(res, csp);
    res.setHeader('Cache-Control', 'no-cache');
    res
      .status(found ? 200 : 404)
      .type('html')
      .send(html);
  });
  router.get(/.*/, (_req, res, next) => {
    const index = `${WEB_ROOT}/index.html`;
    if (!fs.existsSync(index))
      return next(unavailable('The dashboard is not built; run npm run build:web', 'dashboard_unavailable'));
    securityHeaders(res, csp);
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').sendFile(index);
  });
  return router;
}

function securityHeaders(res: Response, csp: string) {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/** The origin a request was addressed to (behind a trusted proxy, as the proxy received it). */
function originOf(req: Request): string {
  return `${req.secure ? 'https' : 'http'}://${req.headers.host ?? ''}`;
}

function roleList(roles: Role[]): string {
  return roles.length === 1 ? roles[0] : `${roles.slice(0, -1).join(', ')} or ${roles[roles.length - 1]}`;
}
