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
//
// So a proxied answer is contract-clean when it has no `sl-violations` header, is not Prism's
// problem+json, and carries the server's own X-Service-Request-Id (Prism-made and re-mocked
// answers do not, or carry the spec's example value).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpsRequest, type RequestOptions, type TestResponse } from './server';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SPEC_PATH = path.join(root, 'generated/openapi.json');
const require = createRequire(import.meta.url);
const PRISM_CLI = require.resolve('@stoplight/prism-cli/dist/index.js');
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
export async function startPrismProxy(upstream: string, opts: { ca?: string; timeoutMs?: number } = {}): Promise<PrismProxy> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-prism-'));
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' };
  if (opts.ca) {
    const caFile = path.join(tmp, 'upstream-ca.pem');
    fs.writeFileSync(caFile, opts.ca);
    env.NODE_EXTRA_CA_CERTS = caFile;
  }
  const args = [PRISM_CLI, 'proxy', SPEC_PATH, upstream, '--errors', '--host', '127.0.0.1', '--port', '0', '--multiprocess=false'];
  const child: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const cleanup = () => fs.rmSync(tmp, { recursive: true, force: true });

  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Prism did not start within ${opts.timeoutMs ?? 30_000} ms:\n${log}`)), opts.timeoutMs ?? 30_000);
      const onData = () => {
        const m = /Prism is listening on (http:\/\/[\d.]+:\d+)/.exec(log);
        if (m) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          resolve(m[1]);
        }
      };
      child.stdout!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`Prism exited (${code ?? signal}) before listening:\n${log}`));
      });
    });
  } catch (err) {
    child.kill('SIGKILL');
    process.off('exit', killOnExit);
    cleanup();
    throw err;
  }

  return {
    url,
    request: (method, pathname, ro) => httpsRequest(url, '', method, pathname, ro),
    logs: () => log,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
        await exited;
        clearTimeout(timer);
      }
      cleanup();
    },
  };
}

/**
 * Everything that makes a proxied answer not a clean pass-through of a contract-valid server
 * answer, as readable messages. Empty means: Prism forwarded the request, the server answered,
 * and Prism found no request or response violation (of any severity).
 */
export function prismViolations(res: TestResponse): string[] {
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
  if (!requestId) problems.push(`no X-Service-Request-Id: the answer (${res.status}) did not come from the server`);
  else if (requestId === EXAMPLE_REQUEST_ID) problems.push('X-Service-Request-Id is the spec example: Prism re-mocked the answer (upstream 501?)');
  return problems;
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
const prismHttpDir = path.dirname(require.resolve('@stoplight/prism-http/package.json', { paths: [path.dirname(PRISM_CLI)] }));
const prismHttp = () => require(prismHttpDir);
const prismRouter = () => require(path.join(prismHttpDir, 'dist/router/index.js')).default;
const prismValidator = () => require(path.join(prismHttpDir, 'dist/validator/index.js'));
const SEVERITY = ['Error', 'Warning', 'Information', 'Hint'];

/**
 * Validates an answer the server gave directly (not through the proxy) with Prism's own
 * router and response validator, exactly as the proxy would have: the same messages as
 * `prismViolations`, for requests Prism refuses to forward.
 */
export async function directViolations(method: string, pathname: string, res: TestResponse): Promise<string[]> {
  operations ??= prismHttp().getHttpOperationsFromSpec(SPEC_PATH);
  const resources = await operations;
  const url = new URL(pathname, 'https://upstream.invalid');
  const routed: Either<Error, PrismHttpOperation> = prismRouter()({
    resources,
    input: { method: method.toLowerCase(), url: { path: url.pathname, query: Object.fromEntries(url.searchParams) }, headers: {} },
  });
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
      ? checked.left.map((d) => `${SEVERITY[d.severity] ?? d.severity} at ${['response', ...(d.path ?? [])].join('.')}: ${d.message}`)
      : [];
  if (!headers['x-service-request-id']) problems.push('no X-Service-Request-Id header');
  return problems;
}
