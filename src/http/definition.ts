import fs from 'node:fs';
import { projectPath } from '../platform/project-root.ts';

export const definitionPath = projectPath('generated/openapi.json');
let cached: any;

/** The bundled OpenAPI document that `npm run gen` writes from openapi/. */
export function loadDefinition(): any {
  cached ??= JSON.parse(fs.readFileSync(definitionPath, 'utf8'));
  return structuredClone(cached);
}

/**
 * The document with every local `$ref` replaced by a copy of what it names. openapi-backend
 * resolves a `$ref` met twice to one shared object, and Ajv then files the errors of that schema
 * under the place it compiled first: an event name Variant A's form refuses came back as an error
 * of the top-level list. The answers to a refused request read those places
 * (src/http/validation.ts), so each place gets its own schema. The contracts have no recursive
 * schema; one would be refused here.
 */
export function inlineRefs<T>(document: T): T {
  const keys = (ref: string) =>
    ref
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const target = (ref: string) => keys(ref).reduce((node: any, key) => node?.[key], document);
  const copy = (node: unknown, chain: string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => copy(n, chain));
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    if (typeof $ref === 'string' && $ref.startsWith('#/')) {
      if (chain.includes($ref)) throw new Error(`The contract's ${$ref} refers to itself`);
      const named = copy(target($ref), [...chain, $ref]);
      return Object.keys(rest).length ? { ...(named as object), ...(copy(rest, chain) as object) } : named;
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, copy(v, chain)]));
  };
  return copy(document, []) as T;
}
