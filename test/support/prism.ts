// Stoplight Prism as a contract checker: a `prism proxy --errors` child process in front of a
// real server, plus Prism's own response validator in-process for answers that cannot travel
// through the proxy.
//
// How Prism 5 (prism-cli 5.14, prism-http 5.12, prism-http-server 5.12) reports problems in
// proxy mode with --errors, read from node_modules/@stoplight/prism-{core,http,http-server}:
//
// - Response violations (body, headers, media type, undeclared status) are listed in the
//   `sl-violations` response header, a JSON array of {location, severity, code?, message}.
//   Severity "Error" (schema errors, missing required headers, an undeclared 2xx status)
//   additionally replaces the upstream answer with Prism's own 500 application/problem+json,
//   type https://stoplight.io/prism/errors#VIOLATIONS. Severity "Warning" (notably an
//   undeclared 4xx/5xx status) only sets the header and passes the upstream answer through.
// - Request violations never reach the upstream: with --errors prism-core hands them to the
//   forwarder, which answers itself: 401 problem+json (type #UNAUTHORIZED) when the security
//   requirement fails (no `Authorization: Bearer ...`), else 422 problem+json (#UNPROCESSABLE_ENTITY)
//   listing the violations. Malformed JSON is refused even earlier by Prism's body parser with
//   400 `{"error":{"code":"invalid_json",...}}`. An unknown path/method is 404/405 problem+json.
// - An upstream 501 is replaced by a mocked answer built from the spec examples ("Remocking").
// - The forwarder (node-fetch) follows redirects and reads every non-JSON body as text: an
//   upstream 301/302 never reaches the client (Prism fetches the Location and validates that
//   answer instead), and a binary body arrives re-encoded. It drops the client's Host header.
//
// So a proxied answer is contract-clean when it has no `sl-violations` header, is not Prism's
// problem+json, and carries the server's own X-Service-Request-Id (Prism-made and re-mocked
// answers do not, or carry the spec's example value) wherever the document declares one: the
// visitor pages declare none, and their callers recognise the server's page by its content.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Engine } from '../../src/db/knex';
import { PRISM_CLI, startPrismChild, type PrismChild } from './prism-child';
import { httpsRequest, startTestServer, type RequestOptions, type TestResponse, type TestServer } from './server';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SPEC_PATH = path.join(root, 'generated/openapi.json');
const require = createRequire(import.meta.url);
export const PRISM_ERROR = 'https://stoplight.io/prism/errors#';

const spec = JSON.parse(fs.readFileSync(SPEC_PATH, 'utf8'));
/** The spec's example request id: a re-mocked answer (upstream 501) would carry it. */
const EXAMPLE_REQUEST_ID: string | undefined = spec.components?.headers?.XServiceRequestId?.schema?.examples?.[0];

export interface PrismProxy {
  url: string;
  request(method: string, pathname: string, opts?: RequestOptions): Promise<TestResponse>;
  /** Prism's recent log output, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

/**
 * Starts `prism proxy <spec> <upstream> --errors` on a free port and resolves once it listens.
 * `ca` (PEM) is trusted by the child only, through NODE_EXTRA_CA_CERTS.
 */
export async function startPrismProxy(
  upstream: string,
  opts: { ca?: string; timeoutMs?: number } = {},
): Promise<PrismProxy> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-prism-'));
  const env: NodeJS.ProcessEnv = {};
  if (opts.ca) {
    const caFile = path.join(tmp, 'upstream-ca.pem');
    fs.writeFileSync(caFile, opts.ca);
    env.NODE_EXTRA_CA_CERTS = caFile;
  }
  const cleanup = () => fs.rmSync(tmp, { recursive: true, force: true });
  let prism: PrismChild;
  try {
    prism = await startPrismChild('proxy', [SPEC_PATH, upstream, '--errors'], { env, timeoutMs: opts.timeoutMs });
  } catch (err) {
    cleanup();
    throw err;
  }
  return {
    url: prism.url,
    request: (method, pathname, ro) => httpsRequest(prism.url, '', method, pathname, ro),
    logs: prism.logs,
    async stop() {
      await prism.stop();
      cleanup();
    },
  };
}

/**
 * Everything that makes a proxied answer not a clean pass-through of a contract-valid server
 * answer, as readable messages. Empty means: Prism forwarded the request, the server answered,
 * and Prism found no request or response violation (of any severity).
 */
export function prismViolations(res: TestResponse, opts: ViolationOptions = {}): string[] {
  const problems: string[] = [];
  const header = res.headers['sl-violations'];
  if (header !== undefined) {
    const raw = Array.isArray(header) ? header.join(',') : header;
    try {
      for (const v of JSON.parse(raw)) problems.push(`${v.severity} at ${(v.location ?? []).join('.')}: ${v.message}`);
    } catch {
      problems.push(`sl-violations: ${raw}`);
    }
  }
  const contentType = String(res.headers['content-type'] ?? '');
  if (contentType.startsWith('application/problem+json') || String(res.body?.type ?? '').startsWith(PRISM_ERROR)) {
    problems.push(`Prism answered ${res.status} itself: ${res.text}`);
  } else if (res.body?.error?.code === 'invalid_json') {
    problems.push(`Prism refused the request body as malformed JSON: ${res.text}`);
  }
  const requestId = res.headers['x-service-request-id'];
  if (requestId === EXAMPLE_REQUEST_ID)
    problems.push('X-Service-Request-Id is the spec example: Prism re-mocked the answer (upstream 501?)');
  else if (!requestId && opts.requestId !== false)
    problems.push(`no X-Service-Request-Id: the answer (${res.status}) did not come from the server`);
  return problems;
}

export interface ViolationOptions {
  /**
   * Whether the answer must carry the server's X-Service-Request-Id (default true). The pages
   * and redirects of the visitor paths (tag "Short links") are served before the API app and
   * declare no such header; the caller then proves the origin by asserting on the body.
   */
  requestId?: boolean;
}

// Prism's validator, in-process, on the same bundled document the proxy loads. prism-http is
// prism-cli's own dependency (the version the proxy runs); its router and validator are CommonJS.
interface PrismHttpOperation {
  method: string;
  path: string;
  iid?: string;
  [k: string]: unknown;
}
type Either<L, R> = { _tag: 'Left'; left: L } | { _tag: 'Right'; right: R };
interface Diagnostic {
  message: string;
  severity: number;
  path?: (string | number)[];
}

let operations: Promise<PrismHttpOperation[]> | undefined;
const prismHttpDir = path.dirname(
  require.resolve('@stoplight/prism-http/package.json', { paths: [path.dirname(PRISM_CLI)] }),
);
const prismHttp = () => require(prismHttpDir);
const prismRouter = () => require(path.join(prismHttpDir, 'dist/router/index.js')).default;
const prismValidator = () => require(path.join(prismHttpDir, 'dist/validator/index.js'));
const SEVERITY = ['Error', 'Warning', 'Information', 'Hint'];

async function route(method: string, pathname: string): Promise<Either<Error, PrismHttpOperation>> {
  operations ??= prismHttp().getHttpOperationsFromSpec(SPEC_PATH);
  const resources = await operations;
  const url = new URL(pathname, 'https://upstream.invalid');
  return prismRouter()({
    resources,
    input: {
      method: method.toLowerCase(),
      url: { path: url.pathname, query: Object.fromEntries(url.searchParams) },
      headers: {},
    },
  });
}

/** The operationId Prism's router gives a request (null when the document has no operation for it). */
export async function operationOf(method: string, pathname: string): Promise<string | null> {
  const routed = await route(method, pathname);
  return routed._tag === 'Right' ? (routed.right.iid ?? null) : null;
}

/**
 * Validates an answer the server gave directly (not through the proxy) with Prism's own
 * router and response validator, exactly as the proxy would have: the same messages as
 * `prismViolations`, for requests Prism refuses to forward.
 */
export async function directViolations(
  method: string,
  pathname: string,
  res: TestResponse,
  opts: ViolationOptions = {},
): Promise<string[]> {
  const url = new URL(pathname, 'https://upstream.invalid');
  const routed = await route(method, pathname);
  if (routed._tag === 'Left') return [`no operation in the spec for ${method} ${url.pathname}: ${routed.left.message}`];
  const headers = Object.fromEntries(
    Object.entries(res.headers)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]),
  );
  const contentType = headers['content-type'] ?? '';
  const body = /^application\/(.+\+)?json/.test(contentType) && res.text ? JSON.parse(res.text) : res.text;
  const checked: Either<Diagnostic[], unknown> = prismValidator().validateOutput({
    resource: routed.right,
    element: { statusCode: res.status, headers, body },
  });
  const problems =
    checked._tag === 'Left'
      ? checked.left.map(
          (d) => `${SEVERITY[d.severity] ?? d.severity} at ${['response', ...(d.path ?? [])].join('.')}: ${d.message}`,
        )
      : [];
  if (!headers['x-service-request-id'] && opts.requestId !== false) problems.push('no X-Service-Request-Id header');
  return problems;
}

// The harness the contract suites share: servers behind their own proxies, the three ways a
// request is checked, and the record of which declared statuses were exercised.

/** A request: method, path (with query) and the options of test/support/server.ts. */
export interface Call {
  method: string;
  path: string;
  opts?: RequestOptions;
}

/** Every operationId of the document with its declared statuses. */
export function declaredStatuses(): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const item of Object.values<any>(spec.paths)) {
    for (const op of Object.values<any>(item)) {
      if (op?.operationId) out.set(op.operationId, Object.keys(op.responses).map(Number));
    }
  }
  return out;
}

/** Whether the document declares X-Service-Request-Id on this answer (the API's answers do; visitor pages do not). */
function declaresRequestId(operationId: string, status: number): boolean {
  for (const item of Object.values<any>(spec.paths)) {
    for (const op of Object.values<any>(item)) {
      if (op?.operationId !== operationId) continue;
      let response = op.responses[String(status)];
      if (response?.$ref) response = spec.components.responses[response.$ref.split('/').pop()];
      return Object.keys(response?.headers ?? {}).some((h) => h.toLowerCase() === 'x-service-request-id');
    }
  }
  return true;
}

/** Which declared statuses of which operations the suites exercised, through the proxy or directly. */
export class ContractCoverage {
  private readonly seen = new Map<string, Set<number>>();

  record(operationId: string, status: number): void {
    if (!this.seen.has(operationId)) this.seen.set(operationId, new Set());
    this.seen.get(operationId)!.add(status);
  }

  /** `operationId status` of every declared status never exercised, the `excused` ones aside. */
  missing(excused: Record<string, number[]>): string[] {
    const out: string[] = [];
    for (const [op, statuses] of declaredStatuses()) {
      for (const status of statuses) {
        if (excused[op]?.includes(status) || excused['*']?.includes(status)) continue;
        if (!this.seen.get(op)?.has(status)) out.push(`${op} ${status}`);
      }
    }
    return out;
  }
}

/** A real server and a `prism proxy --errors` in front of it. */
export interface ContractTarget {
  server: TestServer;
  prism: PrismProxy;
  stop(): Promise<void>;
}

export async function startContractTarget(
  engine: Engine,
  opts: Parameters<typeof startTestServer>[1] = {},
): Promise<ContractTarget> {
  const server = await startTestServer(engine, opts);
  try {
    const prism = await startPrismProxy(server.url.replace('//localhost:', '//127.0.0.1:'), { ca: server.ca });
    return {
      server,
      prism,
      async stop() {
        await prism.stop();
        await server.stop();
      },
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

export interface ContractChecks {
  /**
   * Through the proxy: Prism routed the request to `op`, found no request or response
   * violation, the server answered (its request id, where the document declares one), with
   * `status`.
   */
  viaPrism(op: string, call: Call, status: number): Promise<TestResponse>;
  /**
   * A request the document itself forbids: Prism must refuse it with `prismStatus` without
   * forwarding it, and the server's own answer to it, sent directly, must be `status` (null:
   * any) and valid against the document by Prism's validator.
   */
  refusedByPrism(
    op: string,
    call: Call,
    prismStatus: number,
    status: number | null,
  ): Promise<{ proxied: TestResponse; direct: TestResponse }>;
  /**
   * Straight to the server, validated in-process by Prism's validator: for answers the proxy
   * cannot carry. Prism's forwarder follows redirects (so a 301/302 never reaches the client:
   * Prism would fetch and validate the destination instead) and re-encodes bodies as text
   * (so a PNG arrives corrupted).
   */
  directly(op: string, call: Call, status: number): Promise<TestResponse>;
}

export function contractChecks(target: () => ContractTarget, coverage: ContractCoverage): ContractChecks {
  const describeCall = (call: Call) => `${call.method} ${call.path}`;
  async function expectRouted(op: string, call: Call) {
    expect(
      await operationOf(call.method, call.path),
      `the document routes ${describeCall(call)} to another operation`,
    ).toBe(op);
  }
  return {
    async viaPrism(op, call, status) {
      await expectRouted(op, call);
      const { prism } = target();
      const res = await prism.request(call.method, call.path, call.opts);
      const violations = prismViolations(res, { requestId: declaresRequestId(op, res.status) });
      if (violations.length) {
        const tail = prism.logs().split('\n').slice(-15).join('\n');
        throw new Error(
          `${op}: ${describeCall(call)} through Prism (status ${res.status}):\n  ${violations.join('\n  ')}\nPrism log tail:\n${tail}`,
        );
      }
      expect(res.status, `${op}: ${describeCall(call)} -> ${res.text.slice(0, 300)}`).toBe(status);
      coverage.record(op, status);
      return res;
    },

    async refusedByPrism(op, call, prismStatus, status) {
      await expectRouted(op, call);
      const { prism, server } = target();
      const proxied = await prism.request(call.method, call.path, call.opts);
      expect(proxied.status, `Prism should refuse ${describeCall(call)} itself: ${proxied.text}`).toBe(prismStatus);
      expect(proxied.headers['x-service-request-id'], 'Prism forwarded a request the document forbids').toBeUndefined();
      if (prismStatus !== 400) expect(proxied.body.type).toMatch(PRISM_ERROR);
      const direct = await server.request(call.method, call.path, call.opts);
      const violations = await directViolations(call.method, call.path, direct, {
        requestId: declaresRequestId(op, direct.status),
      });
      expect(violations, `${op}: server's direct answer ${direct.status} ${direct.text}`).toEqual([]);
      if (status !== null) {
        expect(direct.status, `${op}: ${describeCall(call)} directly -> ${direct.text.slice(0, 300)}`).toBe(status);
        coverage.record(op, status);
      }
      return { proxied, direct };
    },

    async directly(op, call, status) {
      await expectRouted(op, call);
      const res = await target().server.request(call.method, call.path, call.opts);
      const violations = await directViolations(call.method, call.path, res, {
        requestId: declaresRequestId(op, res.status),
      });
      expect(violations, `${op}: server's direct answer ${res.status} ${res.text.slice(0, 300)}`).toEqual([]);
      expect(res.status, `${op}: ${describeCall(call)} directly -> ${res.text.slice(0, 300)}`).toBe(status);
      coverage.record(op, status);
      return res;
    },
  };
}
