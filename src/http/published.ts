// The published documents, served without a key: the API reference at /docs, the webhook reference of
// both variants at /docs/webhooks (both built into generated/docs/ by `npm run docs`, which npm's
// prepare step runs after every install), the bundled OpenAPI document at /openapi.json and the
// AsyncAPI documents at /asyncapi/variant-a.json and /asyncapi/variant-b.json (generated/, checked
// in). Public: no key, the same bytes for every reader.
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

export function servePublishedDocuments(app: Express): void {
  for (const doc of PUBLISHED) {
    const file = projectPath(doc.file);
    app.get(doc.paths, (_req, res, next) => {
      if (!fs.existsSync(file))
        return next(unavailable('The docs are not built; run npm run docs', 'docs_unavailable'));
      // The same for every reader, and changed by every release: a cache may keep a copy but
      // must ask again before using it, and nothing may guess another type.
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if (doc.type === HTML) {
        res.setHeader('Content-Security-Policy', PAGE_POLICY);
        res.setHeader('Referrer-Policy', 'no-referrer');
      } else {
        // The contract is public: browser-based tools of any origin may read it.
        res.setHeader('Access-Control-Allow-Origin', '*');
      }
      res.sendFile(
        file,
        { headers: { 'Content-Type': doc.type }, lastModified: false, etag: false, cacheControl: false },
        (err) => {
          if (err) next(err);
        },
      );
    });
  }
}
