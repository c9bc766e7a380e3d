// The webhook event catalogue of each variant, read from the AsyncAPI documents (as JSON in
// generated/, written by `npm run gen`): the one source of event names, their meaning, the
// JSON Schema of each event's `data` object and the retired names. The schema endpoint and
// the subscription checks both derive from it.
import fs from 'node:fs';

import type { Variant } from '../domain/webhook-delivery.ts';
import { projectPath } from '../platform/project-root.ts';

export type { Variant };
export type JsonSchema = Record<string, unknown>;

export interface CatalogEvent {
  name: string;
  description: string;
  /** Self-contained JSON Schema (draft 2020-12) of the delivery's `data` object. */
  payload: JsonSchema;
  /** The `data` of the message's first documented example: what "Send test event" sends. */
  example: Record<string, unknown>;
}

export interface EventCatalog {
  variant: Variant;
  events: CatalogEvent[];
  retired: Array<{ name: string }>;
  has(name: string): boolean;
  isRetired(name: string): boolean;
  dataSchema(name: string): JsonSchema | undefined;
}

const documentPath = (variant: Variant) => projectPath(`generated/asyncapi-${variant.toLowerCase()}.json`);

function pointer(document: any, ref: string): any {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported in the AsyncAPI documents: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node, key) => {
      if (node === undefined || !(key in node)) throw new Error(`unresolved $ref ${ref}`);
      return node[key];
    }, document);
}

/** Inlines every local $ref, so each payload schema stands on its own. */
function dereference(document: any, node: any, seen: string[] = []): any {
  if (Array.isArray(node)) return node.map((item) => dereference(document, item, seen));
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') {
    if (seen.includes(node.$ref)) throw new Error(`circular $ref ${node.$ref}`);
    const { $ref, ...siblings } = node;
    const target = dereference(document, pointer(document, $ref), [...seen, $ref]);
    return { ...target, ...dereference(document, siblings, seen) };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dereference(document, v, seen)]));
}

function loadCatalog(variant: Variant): EventCatalog {
  const document = JSON.parse(fs.readFileSync(documentPath(variant), 'utf8'));
  const events: CatalogEvent[] = Object.values<any>(document.components?.messages ?? {}).map((message) => {
    const resolved = dereference(document, message);
    const data = resolved.payload?.properties?.data;
    if (!resolved.name || !data) throw new Error(`AsyncAPI variant ${variant}: a message without name or data schema`);
    const example = resolved.examples?.[0]?.payload?.data;
    if (!example || typeof example !== 'object')
      throw new Error(`AsyncAPI variant ${variant}: ${resolved.name} has no example with data`);
    return {
      example,
      name: resolved.name as string,
      description: [resolved.summary, resolved.description]
        .filter(Boolean)
        .map((s: string) => s.trim())
        .join('\n\n'),
      payload: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...data },
    };
  });
  const retired = ((document['x-retired-events'] ?? []) as Array<{ name: string }>).map((r) => ({ name: r.name }));
  const byName = new Map(events.map((e) => [e.name, e]));
  const retiredNames = new Set(retired.map((r) => r.name));
  return {
    variant,
    events,
    retired,
    has: (name) => byName.has(name),
    isRetired: (name) => retiredNames.has(name),
    dataSchema: (name) => byName.get(name)?.payload,
  };
}

const catalogs = new Map<Variant, EventCatalog>();

export function eventCatalog(variant: Variant): EventCatalog {
  let catalog = catalogs.get(variant);
  if (!catalog) {
    catalog = loadCatalog(variant);
    catalogs.set(variant, catalog);
  }
  return catalog;
}

/** The names of `requested` a variant does not offer, split into retired and unknown ones. */
export function refusedEventNames(variant: Variant, requested: string[]): { retired: string[]; unknown: string[] } {
  const catalog = eventCatalog(variant);
  const refused = requested.filter((name) => !catalog.has(name));
  return {
    retired: refused.filter((name) => catalog.isRetired(name)),
    unknown: refused.filter((name) => !catalog.isRetired(name)),
  };
}
