// Which path of a contract a request's path belongs to. A reader of the contract expects a fixed
// path to win over a template for every method: `PATCH .../links/export` is a method the export
// does not have (405 with Allow), never an update of the link "export", and `POST /healthz` is
// not a password form posted to the short link "healthz". openapi-backend picks a fixed path
// only when it has the request's method, and otherwise tries the templates, so both apps route
// through `preferFixedPaths`, and the redirect path hands every fixed path to them.
import type { OpenAPIRouter, Operation } from 'openapi-backend';

/** The methods that change something: both apps read their bodies, and a change's workspace reads its own writes. */
export const CHANGING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface ContractPath {
  path: string;
  pattern: RegExp;
  /** Per segment, 1 when it is fixed text and 0 when it holds a template: the larger wins. */
  rank: number[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(path: string): ContractPath {
  // As openapi-backend reads a template: `{name}` stands for one segment or part of one.
  const pattern = new RegExp(
    `^${path
      .split(/\{[^}]+\}/)
      .map(escapeRegExp)
      .join('[^/]+')}$`,
  );
  return { path, pattern, rank: path.split('/').map((segment) => (segment.includes('{') ? 0 : 1)) };
}

/** Whether a's segments are fixed further left than b's (both fit the same request path). */
function moreFixed(a: ContractPath, b: ContractPath): boolean {
  for (let i = 0; i < Math.min(a.rank.length, b.rank.length); i++) {
    if (a.rank[i] !== b.rank[i]) return a.rank[i] > b.rank[i];
  }
  return false;
}

/** The paths of a bundled document that hold no template (/healthz; not /workspaces/{id}/links/export). */
export function fixedPathsOf(definition: { paths?: Record<string, unknown> }): Set<string> {
  return new Set(Object.keys(definition.paths ?? {}).filter((p) => !p.includes('{')));
}

/**
 * Makes `router` match a request to the contract path it belongs to, the path fixed furthest
 * left among those it fits, and then to that path's operation for the method: none is a 405
 * (strict) or undefined, never a templated sibling's operation. Returns the methods each
 * request path allows, for the 405's Allow header.
 */
export function preferFixedPaths(router: OpenAPIRouter): { allowed(requestPath: string): string[] } {
  const operations = new Map<string, Operation[]>();
  for (const op of router.getOperations()) operations.set(op.path, [...(operations.get(op.path) ?? []), op]);
  const paths = [...operations.keys()].map(compile);

  const ownerOf = (requestPath: string): string | undefined => {
    let best: ContractPath | undefined;
    for (const p of paths) if (p.pattern.test(requestPath) && (!best || moreFixed(p, best))) best = p;
    return best?.path;
  };

  type Request = Parameters<OpenAPIRouter['matchOperation']>[0];
  type Match = (req: Request, strict?: boolean) => Operation | undefined;
  const original = router.matchOperation.bind(router) as Match;
  router.matchOperation = ((req: Request, strict: boolean = false) => {
    const normalized = router.normalizeRequest(req);
    const owner = ownerOf(router.normalizePath(normalized.path));
    // No path fits: openapi-backend's own answer (404, or undefined).
    if (owner === undefined) return original(req, strict);
    const match = operations.get(owner)!.find((op) => op.method === normalized.method);
    if (match || !strict) return match;
    // openapi-backend turns an error starting with 405 into its methodNotAllowed handler.
    throw new Error(`405-methodNotAllowed: ${normalized.method.toUpperCase()} is not an operation of ${owner}`);
  }) as OpenAPIRouter['matchOperation'];

  return {
    allowed(requestPath: string): string[] {
      const normalized = router.normalizeRequest({ method: 'get', path: requestPath, headers: {} });
      const owner = ownerOf(router.normalizePath(normalized.path));
      return owner === undefined ? [] : operations.get(owner)!.map((op) => op.method.toUpperCase());
    },
  };
}
