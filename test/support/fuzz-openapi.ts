// A bundled OpenAPI document as the fuzzers and the isolation suite read it: every operation
// with its merged parameters, required scopes and documented statuses, and one Ajv (2020-12,
// ajv-formats) that compiles response and request schemas straight out of the document, $refs
// resolved inside it. The module's own exports are the public API's (generated/openapi.json);
// `openDocument` reads another (the dashboard's, generated/dashboard.json).
import fs from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

export interface DocumentedResponse {
  status: number;
  /** Where the (followed) response object lives, for compiling its schemas. */
  pointer: string;
  mediaTypes: string[];
}

export interface Operation {
  operationId: string;
  method: string; // upper case
  path: string; // the template, e.g. /api/v1/links/{id}
  pointer: string; // #/paths/~1api~1v1~1links~1{id}/patch
  op: any;
  /** Path-level and operation-level parameters, $refs followed. */
  parameters: any[];
  /** Scopes the operation requires, or null when it is public (`security: []`). */
  scopes: string[] | null;
  responses: Map<number, DocumentedResponse>;
  /** The inlined JSON request body schema, when the operation takes a JSON body. */
  requestSchema?: any;
  requestMediaTypes: string[];
  requestBodyRequired: boolean;
  /** An `/api` route: every error answer is `{ error, field?, code? }` JSON. */
  isApi: boolean;
  /** The path a request is sent to: the document's server path (e.g. /app/api) and the template. */
  url: string;
}

export interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

export const ERROR_SCHEMA_POINTER = '#/components/schemas/Error';

const mediaTypeOf = (res: ResponseLike) =>
  String(res.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();

/** One bundled document (a file of generated/) and everything read out of it. */
export function openDocument(file: string) {
  const id = `https://shortlink.test/generated/${file}`;
  const document: any = JSON.parse(fs.readFileSync(new URL(`../../generated/${file}`, import.meta.url), 'utf8'));
  // Operations are sent under the first server's path (the dashboard's /app/api); the public
  // document's paths are absolute already.
  const serverPath = document.servers?.[0]?.url ? new URL(document.servers[0].url).pathname.replace(/\/$/, '') : '';

  /** The node at a local `#/...` pointer of the document. */
  function atPointer(pointer: string): any {
    if (!pointer.startsWith('#/')) throw new Error(`not a local pointer: ${pointer}`);
    return pointer
      .slice(2)
      .split('/')
      .map(unescapePointer)
      .reduce((node, key) => {
        if (node === undefined || node === null || !(key in node)) throw new Error(`unresolved pointer ${pointer}`);
        return node[key];
      }, document);
  }

  /** Follows a chain of `$ref`s (responses, parameters): the node and the pointer it lives at. */
  function follow(node: any, pointer: string): { node: any; pointer: string } {
    const seen = new Set<string>();
    while (node && typeof node === 'object' && typeof node.$ref === 'string') {
      if (seen.has(node.$ref)) throw new Error(`circular $ref ${node.$ref}`);
      seen.add(node.$ref);
      pointer = node.$ref;
      node = atPointer(pointer);
    }
    return { node, pointer };
  }

  /** A schema with every `$ref` inlined (the document has no recursive schemas). */
  function inline(schema: any, depth = 0): any {
    if (depth > 40) throw new Error('schema nesting too deep (recursive $ref?)');
    if (Array.isArray(schema)) return schema.map((s) => inline(s, depth + 1));
    if (!schema || typeof schema !== 'object') return schema;
    if (typeof schema.$ref === 'string') {
      const { $ref, ...siblings } = schema;
      return { ...inline(atPointer($ref), depth + 1), ...inline(siblings, depth + 1) };
    }
    return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v, depth + 1)]));
  }

  function operations(): Operation[] {
    const out: Operation[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        const pointer = `#/paths/${escapePointer(path)}/${method}`;
        const byKey = new Map<string, any>();
        for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
          const { node } = follow(p, pointer);
          byKey.set(`${node.in}:${node.name}`, { ...node, schema: inline(node.schema ?? {}) });
        }
        const security = op.security ?? document.security ?? [];
        const scopes =
          security.length === 0 ? null : security.flatMap((req: Record<string, string[]>) => Object.values(req).flat());
        const responses = new Map<number, DocumentedResponse>();
        for (const [status, resp] of Object.entries<any>(op.responses ?? {})) {
          const followed = follow(resp, `${pointer}/responses/${status}`);
          responses.set(Number(status), {
            status: Number(status),
            pointer: followed.pointer,
            mediaTypes: Object.keys(followed.node.content ?? {}),
          });
        }
        const body = op.requestBody ? follow(op.requestBody, `${pointer}/requestBody`).node : undefined;
        const jsonSchema = body?.content?.['application/json']?.schema;
        out.push({
          operationId: op.operationId,
          method: method.toUpperCase(),
          path,
          pointer,
          op,
          parameters: [...byKey.values()],
          scopes,
          responses,
          requestSchema: jsonSchema ? inline(jsonSchema) : undefined,
          requestMediaTypes: Object.keys(body?.content ?? {}),
          requestBodyRequired: !!body?.required,
          isApi: path.startsWith('/api/') || serverPath !== '',
          url: `${serverPath}${path}`,
        });
      }
    }
    return out;
  }

  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false }));
  ajv.addSchema(document, id);

  const validators = new Map<string, ValidateFunction>();
  /** A validator for the schema at a pointer of the document (its own $refs resolve in the document). */
  function validatorAt(pointer: string): ValidateFunction {
    let v = validators.get(pointer);
    if (!v) {
      v = ajv.compile({ $ref: `${id}${pointer}` });
      validators.set(pointer, v);
    }
    return v;
  }

  /**
   * Everything the document promises about one answer of one operation: no 5xx, a documented
   * status, a documented media type, an error body of exactly the Error shape, a success body
   * valid against the operation's schema. Returns the problems found (empty: conforms).
   */
  function checkResponse(operation: Operation, res: ResponseLike): string[] {
    const problems: string[] = [];
    if (res.status >= 500) problems.push(`5xx answer ${res.status}`);
    const documented = operation.responses.get(res.status);
    if (!documented) {
      problems.push(
        `status ${res.status} is not documented for ${operation.operationId} (documented: ${[...operation.responses.keys()].join(', ')})`,
      );
    }
    const mediaType = mediaTypeOf(res);
    const isError = res.status >= 400;
    if (operation.isApi && isError) {
      // Every error answer of an /api route: exactly { error, field?, code? }.
      if (mediaType !== 'application/json')
        problems.push(`error answer with Content-Type ${mediaType || '(none)'}, not application/json`);
      const v = validatorAt(ERROR_SCHEMA_POINTER);
      if (res.body === undefined || !v(res.body)) {
        problems.push(`error body is not the Error shape: ${ajv.errorsText(v.errors)}; body ${res.text.slice(0, 200)}`);
      }
    }
    if (!documented) return problems;
    if (documented.mediaTypes.length === 0) {
      if (res.text.length)
        problems.push(`status ${res.status} is documented without a body but has one: ${res.text.slice(0, 120)}`);
      return problems;
    }
    if (res.status >= 300 && res.status < 400) return problems; // redirects: Location, no body
    if (!documented.mediaTypes.includes(mediaType)) {
      problems.push(
        `Content-Type ${mediaType || '(none)'} is not documented for ${res.status} (documented: ${documented.mediaTypes.join(', ')})`,
      );
      return problems;
    }
    if (mediaType === 'application/json') {
      const v = validatorAt(`${documented.pointer}/content/application~1json/schema`);
      if (res.body === undefined) problems.push(`body is not JSON: ${res.text.slice(0, 200)}`);
      else if (!v(res.body)) problems.push(`body does not match the ${res.status} schema: ${ajv.errorsText(v.errors)}`);
    }
    return problems;
  }

  /** The operation a concrete method and path (no query) belong to, matching templates segment by segment. */
  function matchOperation(ops: Operation[], method: string, pathname: string): Operation | undefined {
    const parts = pathname.split('/');
    let best: Operation | undefined;
    let bestLiteral = -1;
    for (const op of ops) {
      if (op.method !== method.toUpperCase()) continue;
      const tpl = op.path.split('/');
      if (tpl.length !== parts.length) continue;
      let literal = 0;
      let ok = true;
      for (let i = 0; i < tpl.length; i++) {
        if (/^\{.+\}$/.test(tpl[i])) continue;
        if (tpl[i] !== parts[i]) {
          ok = false;
          break;
        }
        literal++;
      }
      if (ok && literal > bestLiteral) {
        best = op;
        bestLiteral = literal;
      }
    }
    return best;
  }

  return { id, document, atPointer, follow, inline, operations, ajv, validatorAt, checkResponse, matchOperation };
}

const publicDocument = openDocument('openapi.json');
export const { document, atPointer, follow, inline, operations, ajv, validatorAt, checkResponse, matchOperation } =
  publicDocument;
export const DOCUMENT_ID = publicDocument.id;
