// Request bodies: the 413 of one over its limit, and the bodies every JSON operation refuses before
// its schema is checked: too deep, or holding U+0000 (which Postgres text cannot hold and no field
// needs).
import { tooLarge, type AppError } from '../domain/errors.ts';

/** JSON request bodies of at most 64 KiB (the contracts say so; 413 beyond). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The one path with a larger limit (openapi/paths/api_v1_links_bulk.yaml): 100 links of the
 * longest URLs (2048 characters, and as long an expiredUrl) must fit in one call.
 */
export const BULK_PATH = '/api/v1/links/bulk';
export const BULK_MAX_BODY_BYTES = 1024 * 1024;

/** A number of bytes as the contracts write a limit: "64 KiB", "2 MiB", or bytes when not whole. */
export function sizeName(bytes: number): string {
  if (bytes >= 2 ** 20 && bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The 413 of a body over the limit of what it was sent to (JSON, an image, a CSV file). */
export const bodyTooLarge = (limitBytes: number): AppError => tooLarge(`Request body exceeds ${sizeName(limitBytes)}`);

const MAX_BODY_DEPTH = 64;

/**
 * The dotted path of the first string holding U+0000 ('' for the root), or a note that the
 * body nests deeper than any operation needs; null when the body is fine. Iterative, so a
 * hostile nesting depth cannot exhaust the stack.
 */
export function bodyProblem(body: unknown): { field: string; message: string } | null {
  const stack: Array<[unknown, string, number]> = [[body, '', 0]];
  while (stack.length) {
    const [value, path, depth] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000'))
        return { field: path, message: `${path || 'The request body'} contains a NUL character` };
    } else if (value && typeof value === 'object') {
      if (depth >= MAX_BODY_DEPTH)
        return { field: path.split('.')[0], message: `The request body nests deeper than ${MAX_BODY_DEPTH} levels` };
      for (const [k, v] of Object.entries(value)) {
        const child = path ? `${path}.${k}` : k;
        if (k.includes('\u0000')) return { field: child, message: `${child} contains a NUL character` };
        stack.push([v, child, depth + 1]);
      }
    }
  }
  return null;
}
