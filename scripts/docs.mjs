#!/usr/bin/env node
// Builds the published HTML docs into generated/docs/ (npm run docs; npm's prepare step runs it
// after every install, offline): the API reference (index.html, served at /docs) from the
// OpenAPI document, and the webhook reference (webhooks.html, served at /docs/webhooks) from the
// two AsyncAPI documents. Both are Redocly's `build-docs` (Redoc) with its scripts inlined.
//
// Redoc renders one document per page, and /docs/webhooks shows both variants: the page is built
// from one AsyncAPI document made here for it alone, holding both variants side by side (each
// variant's description under its own heading, its channel, operations and components renamed
// with the variant's prefix, every $ref rewritten). What is published as the contract stays the
// two documents (/asyncapi/variant-a.json, /asyncapi/variant-b.json).
//
// No page of the service may make a request off the machine: Redoc's sidebar shows a Redocly
// logo loaded from a CDN. Its address is replaced by an empty inline image and the attribution
// hidden; the build fails if a CDN address Redoc would load is left in a page.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'generated/docs');
const redocly = path.join(root, 'node_modules/.bin/redocly');
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/** Redoc's own requests off the machine: its logo (the only one a page makes). */
const CDN_IMAGES = ['https://cdn.redoc.ly/redoc/logo-mini-full.svg', 'https://cdn.redoc.ly/redoc/logo-mini.svg'];
const EMPTY_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";
const HIDE_ATTRIBUTION = '<style>a[href="https://redocly.com/redoc/"]{display:none!important}</style>';

function buildDocs(document, output, title, extraArgs = []) {
  execFileSync(
    redocly,
    ['build-docs', document, ...extraArgs, '--inlineBundle', '--title', title, '--output', output],
    { cwd: root, env, stdio: 'pipe' },
  );
  let html = fs.readFileSync(output, 'utf8');
  for (const url of CDN_IMAGES) html = html.split(url).join(EMPTY_IMAGE);
  html = html.replace('</head>', `${HIDE_ATTRIBUTION}</head>`);
  const left = html.match(/https:\/\/cdn\.redoc\.ly\/[^`'"\s)]*/g);
  if (left) throw new Error(`${path.relative(root, output)} still loads from a CDN: ${[...new Set(left)].join(', ')}`);
  fs.writeFileSync(output, html);
}

// ---- the webhook page: both AsyncAPI documents as one ---------------------------------------

const SECTIONS = ['channels', 'operations'];

/** A variant's document with every channel, operation and component named `<prefix>_<name>`. */
function prefixed(doc, prefix, label) {
  const rename = (ref) =>
    ref
      .replace(/^#\/(channels|operations)\/([^/]+)/, (_, kind, name) => `#/${kind}/${prefix}_${name}`)
      .replace(/^#\/components\/([^/]+)\/([^/]+)/, (_, kind, name) => `#/components/${kind}/${prefix}_${name}`);
  const walk = (node) => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? rename(v) : walk(v)]),
    );
  };
  const renamed = (section) =>
    Object.fromEntries(Object.entries(section ?? {}).map(([name, v]) => [`${prefix}_${name}`, walk(v)]));
  const result = { channels: renamed(doc.channels), operations: renamed(doc.operations), components: {} };
  for (const [kind, entries] of Object.entries(doc.components ?? {})) result.components[kind] = renamed(entries);
  for (const channel of Object.values(result.channels))
    channel.title = `${label}: ${channel.title ?? 'subscriber endpoint'}`;
  for (const message of Object.values(result.components.messages ?? {}))
    message.title = `${message.title ?? message.name} (${label})`;
  return result;
}

/** Markdown headings one level down, so that a variant's sections sit under its own heading. */
const demoted = (markdown) => markdown.replace(/^(#{1,5}) /gm, '#$1 ');

function webhookDocument() {
  const a = YAML.parse(fs.readFileSync(path.join(root, 'asyncapi/variant-a.yaml'), 'utf8'));
  const b = YAML.parse(fs.readFileSync(path.join(root, 'asyncapi/variant-b.yaml'), 'utf8'));
  const parts = [prefixed(a, 'A', 'Variant A'), prefixed(b, 'B', 'Variant B')];
  const merged = {
    asyncapi: a.asyncapi,
    id: 'urn:shortlink:webhooks',
    info: {
      title: 'Shortlink webhooks',
      version: a.info.version,
      description: [
        "Signed HTTP POST notifications that Shortlink sends to a subscriber's HTTPS URL. Two forms",
        'of delivery exist side by side: a subscription is delivered in the form of the variant',
        'whose endpoint created it, **Variant A** (`POST /api/webhooks`) or **Variant B**',
        '(`POST /api/v1/webhooks`). This page shows both; the API reference is at',
        '[/docs](/docs), and the machine-readable contracts are',
        '[/asyncapi/variant-a.json](/asyncapi/variant-a.json) and',
        '[/asyncapi/variant-b.json](/asyncapi/variant-b.json) (AsyncAPI 3.0).',
        '',
        `# Variant A`,
        '',
        demoted(a.info.description.replace('described in `variant-b.yaml`', 'described below')),
        '',
        `# Variant B`,
        '',
        demoted(b.info.description.replace('described in `variant-a.yaml`', 'described above')),
      ].join('\n'),
      contact: a.info.contact,
      license: a.info.license,
      tags: [...new Map([...(a.info.tags ?? []), ...(b.info.tags ?? [])].map((t) => [t.name, t])).values()],
    },
    defaultContentType: a.defaultContentType,
    channels: {},
    operations: {},
    components: {},
  };
  for (const part of parts) {
    for (const section of SECTIONS) Object.assign(merged[section], part[section]);
    for (const [kind, entries] of Object.entries(part.components))
      merged.components[kind] = { ...merged.components[kind], ...entries };
  }
  return merged;
}

fs.mkdirSync(out, { recursive: true });
buildDocs('openapi/openapi.yaml', path.join(out, 'index.html'), 'Shortlink API', ['--config', 'openapi/redocly.yaml']);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-docs-'));
try {
  const merged = path.join(tmp, 'webhooks.yaml');
  fs.writeFileSync(merged, YAML.stringify(webhookDocument()));
  buildDocs(merged, path.join(out, 'webhooks.html'), 'Shortlink webhooks');
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log('generated/docs written (index.html, webhooks.html)');
