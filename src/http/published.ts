// The published documents, served without a key: the API reference at /docs, the webhook reference of
// both variants at /docs/webhooks (both built into generated/docs/ by `npm run docs`, which npm's
// prepare step runs after every install), the bundled OpenAPI document at /openapi.json and the
// AsyncAPI documents at /asyncapi/variant-a.json and /asyncapi/variant-b.json (generated/, checked
// in). Public: no key, the same bytes for every reader, naming the service by its PUBLIC_URL.
import fs from 'node:fs';
import type { Express } from 'express';
import { unavailable } from '../domain/errors.ts';
import { projectPath } from '../platform/project-root.ts';

const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

// The pages are Redoc with its scripts and styles inline; nothing is loaded from anywhere else,
// and the policy keeps it so (no page of the service makes a request off the machine).
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PUBLISHED: Array<{ paths: string[]; file: string; type: string }> = [
  { paths: ['/docs', '/docs/'], file: 'generated/docs/index.html', type: HTML },
  { paths: ['/docs/webhooks', '/docs/webhooks/'], file: 'generated/docs/webhooks.html', type: HTML },
  { paths: ['/openapi.json'], file: 'generated/openapi.json', type: JSON_TYPE },
  { paths: ['/asyncapi/variant-a.json'], file: 'generated/asyncapi-a.json', type: JSON_TYPE },
  { paths: ['/asyncapi/variant-b.json'], file: 'generated/asyncapi-b.json', type: JSON_TYPE },
];

/** The service's address as the documents are written (openapi.yaml's server: PUBLIC_URL's default). */
export const DOCUMENTED_URL = 'https://localhost:8443';
/** An address that may stand in a page's HTML and its inline JSON as it is. */
const PLAIN_URL = /^https?:\/\/[A-Za-z0-9.:[\]@%/_~!$()*+,;=-]+$/;

/**
 * The documents as this service publishes them: its own PUBLIC_URL where they name the service
 * (the API's server, the contact), so the reference's examples work as copied. A PUBLIC_URL
 * holding anything else that HTML or JSON would read differently leaves them as written.
 */
export function servePublishedDocuments(app: Express, publicUrl: string): void {
  const here = PLAIN_URL.test(publicUrl) ? publicUrl : DOCUMENTED_URL;
  for (const doc of PUBLISHED) {
    const file = projectPath(doc.file);
    // Read again when `npm run docs` wrote the file anew.
    let kept: { mtimeMs: number; body: Buffer } | undefined;
    app.get(doc.paths, (_req, res, next) => {
      let mtimeMs: number;
      try {
        mtimeMs = fs.statSync(file).mtimeMs;
        if (kept?.mtimeMs !== mtimeMs)
          kept = { mtimeMs, body: Buffer.from(fs.readFileSync(file, 'utf8').replaceAll(DOCUMENTED_URL, here)) };
      } catch {
        return next(unavailable('The docs are not built; run npm run docs', 'docs_unavailable'));
      }
      // The same for every reader, and changed by every release: a cache may keep a copy but
      // must ask again before using it, and nothing may guess another type.
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Type', doc.type);
      if (doc.type === HTML) {
        res.setHeader('Content-Security-Policy', PAGE_POLICY);
        res.setHeader('Referrer-Policy', 'no-referrer');
      } else {
        // The contract is public: browser-based tools of any origin may read it.
        res.setHeader('Access-Control-Allow-Origin', '*');
      }
      res.send(kept.body);
    });
  }
}
