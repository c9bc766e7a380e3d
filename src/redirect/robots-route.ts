// /robots.txt of each short domain (openapi/components/schemas/Routing.yaml, indexable): it allows exactly the
// domain's indexable links (Routing.indexable) and disallows everything else. Built from the
// database when first asked for after a change, then kept.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LookupTiers } from './lookup-tiers.ts';

/** What /robots.txt uses of the redirect service (handler.ts), which passes itself. */
export interface RobotsHost extends Pick<LookupTiers, 'deps' | 'generation'> {
  readonly responses: Float64Array;
  fail(res: ServerResponse, err: unknown): void;
}

/** Google reads the first 500 KiB of a robots.txt; this many links stay well inside it. */
export const MAX_ROBOTS_LINKS = 5_000;

const kept = new WeakMap<RobotsHost, Map<string, { generation: number; body: string }>>();

export function robotsTxt(slugs: string[]): string {
  // `$` ends a path (RFC 9309): /abc$ allows /abc, not /abcdef.
  return ['User-agent: *', ...slugs.map((s) => `Allow: /${s}$`), 'Disallow: /', ''].join('\n');
}

export async function routeRobots(svc: RobotsHost, req: IncomingMessage, res: ServerResponse, domainKey: string) {
  try {
    let byDomain = kept.get(svc);
    if (!byDomain) kept.set(svc, (byDomain = new Map()));
    let entry = byDomain.get(domainKey);
    if (entry === undefined || entry.generation !== svc.generation) {
      const generation = svc.generation;
      const slugs = (await svc.deps.indexableSlugs?.(domainKey, MAX_ROBOTS_LINKS)) ?? [];
      entry = { generation, body: robotsTxt(slugs) };
      if (byDomain.size > 1_000) byDomain.clear();
      byDomain.set(domainKey, entry);
    }
    svc.responses[200]++;
    res.writeHead(200, {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(entry.body),
      'Cache-Control': 'public, max-age=300',
    });
    res.end(req.method === 'HEAD' ? undefined : entry.body);
  } catch (err) {
    svc.fail(res, err);
  }
}
