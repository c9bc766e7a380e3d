// What a log may keep of an address. One-time tokens (password set-up, first run, invitations)
// ride in a `token` query parameter and a shared report's token is a path segment; each stays
// valid until used, so an address is logged only with them replaced.

export const REDACTED = '[REDACTED]';

/** A query parameter holding a credential: `token`, also as `token[]` (any case). */
const SECRET_PARAM = /^token(\[.*\])?$/i;
/** The segment after `shared` is a shared report's token: /app/shared/{token}, /app/api/shared/{token}/unlock. */
const SHARED_TOKEN = /(^|\/)(shared\/)[^/?#]+/gi;
/** A value worth looking into: it may be an address (next=) holding a token of its own. */
const MAY_HOLD_SECRET = /token|shared\//i;
/** Encoded addresses inside addresses: deep enough for next= inside next=, never unbounded. */
const MAX_DEPTH = 4;

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/**
 * A parameter's value (decoded once) with the tokens of any address it holds replaced: `next=`
 * may carry an address, encoded once or more, whose own query has a token. The answer is that
 * address decoded as far as needed, or the value itself when it holds no token.
 */
export function redactValue(value: string, depth = 0): string {
  let layer = value;
  for (let d = depth; d < MAX_DEPTH && MAY_HOLD_SECRET.test(layer); d++) {
    const redacted = redactUrl(layer, d + 1);
    if (redacted !== layer) return redacted;
    const deeper = decode(layer);
    if (deeper === layer) break;
    layer = deeper;
  }
  return value;
}

/** A query string (or fragment) without `?`: each secret parameter's value replaced. */
function redactQuery(query: string, depth: number): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      if (SECRET_PARAM.test(decode(rawName))) return `${rawName}=${REDACTED}`;
      if (eq === -1) return pair;
      const value = decode(pair.slice(eq + 1));
      const redacted = redactValue(value, depth);
      return redacted === value ? pair : `${rawName}=${encodeURIComponent(redacted)}`;
    })
    .join('&');
}

/**
 * The address (a path with its query, or an absolute URL such as a Referer) with every token it
 * carries replaced by [REDACTED]: `token` query parameters, also inside an encoded address in
 * another parameter (`next=`), and a shared report's token segment.
 */
export function redactUrl(url: string, depth = 0): string {
  if (depth > MAX_DEPTH || (!MAY_HOLD_SECRET.test(url) && !url.includes('%'))) return url;
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : url.slice(hashAt + 1);
  const queryAt = beforeHash.indexOf('?');
  const path = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt === -1 ? null : beforeHash.slice(queryAt + 1);
  // A path's encoded slashes do not route, so the segment is found in the path as sent.
  let out = path.replace(SHARED_TOKEN, `$1$2${REDACTED}`);
  if (query !== null) out += `?${redactQuery(query, depth)}`;
  if (hashAt !== -1) out += `#${redactQuery(hash, depth)}`;
  return out;
}

/** A parsed query or route parameters object, as a log may keep it. */
export function redactParams(params: unknown): unknown {
  if (!params || typeof params !== 'object') return params;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params as Record<string, unknown>)) {
    if (SECRET_PARAM.test(name)) out[name] = REDACTED;
    else if (typeof value === 'string') out[name] = redactValue(value);
    else if (Array.isArray(value)) out[name] = value.map((v) => (typeof v === 'string' ? redactValue(v) : v));
    else out[name] = value;
  }
  return out;
}
