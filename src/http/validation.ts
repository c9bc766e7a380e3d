// Turns openapi-backend's Ajv errors into the interface's single `{ error, field }` message.
//
// A schema may carry its own words for what breaks it, where Ajv's would not say it (a pattern, a
// rule between fields): `x-message` is the answer when a value fails that schema, at any keyword
// in it or below it (the innermost such schema wins). In it `{path}` stands for where the schema
// applies (`blocks.2`, `slug`) and `{value}` for the value sent there, quoted. The field named is
// that place, or the property `x-field` names under it.
import type { default as Ajv, ErrorObject } from 'ajv';
import { type AppError, invalid, quoted } from '../domain/errors.ts';
import { refusedEventsError } from '../operations/subscriptions.ts';
import { eventVariantOf } from './event-names.ts';

/**
 * openapi-backend validates with a draft-07 Ajv; the contracts are JSON Schema 2020-12 (OpenAPI
 * 3.1). Ajv, not strict, skips the keywords it does not know, so the one the contracts use beyond
 * draft 07 is added: `dependentRequired`, draft 07's `dependencies` under its new name. (The
 * `discriminator`s only name the `oneOf` forms for readers and generated clients: each form says
 * its own `const`, which is what Ajv checks.)
 */
export function withContractKeywords(ajv: Ajv): Ajv {
  if (!ajv.getKeyword('dependentRequired')) {
    const dependentRequired = (deps: object) => ({ dependencies: deps });
    ajv.addKeyword({ keyword: 'dependentRequired', type: 'object', schemaType: 'object', macro: dependentRequired });
  }
  return ajv;
}

type Operation = { operationId?: string; requestBody?: any; parameters?: any[] };
/** What openapi-backend parsed of the request: the values the errors point into. */
export interface ValidatedRequest {
  requestBody?: unknown;
  query?: Record<string, unknown>;
  params?: Record<string, unknown>;
}

const bodySchema = (operation: Operation): any => operation.requestBody?.content?.['application/json']?.schema;

/**
 * The schema openapi-backend compiled for the part of the request an error is in: the body as
 * `properties.requestBody`, the parameters as `properties.{path,query,header}.properties.{name}`.
 */
function rootSchema(operation: Operation, schemaPath: string): any {
  if (schemaPath.startsWith('#/properties/requestBody')) return { properties: { requestBody: bodySchema(operation) } };
  const parts: Record<string, { properties: Record<string, unknown> }> = {};
  for (const p of operation.parameters ?? []) {
    const name = p.in === 'header' ? String(p.name).toLowerCase() : p.name;
    (parts[p.in] ??= { properties: {} }).properties[name] = p.schema;
  }
  return { properties: parts };
}

const unescapePointer = (segment: string) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
const dotted = (instance: string[]) => instance.slice(1).join('.');
/** A property of the place `instance` (`params.kind`), as a message names it. */
const named = (instance: string[], name: string) => dotted([...instance, name]);

/** A schema met on the way to an error: where in the request it applies, and what must hold for it to apply. */
interface Step {
  schema: any;
  /** The request's location it applies to: ['requestBody', 'blocks', '2']. */
  instance: string[];
  /** "kind is GOAL": the conditions (an `if`'s, a discriminated branch's) under which it applies. */
  conditions: string[];
}

/** Every schema from the root to the one holding the failed keyword, following the error's schemaPath. */
function stepsTo(e: ErrorObject, root: any): Step[] {
  const keywords = e.schemaPath.replace(/^#\/?/, '').split('/').map(unescapePointer);
  const instanceParts = e.instancePath.split('/').filter(Boolean).map(unescapePointer);
  const steps: Step[] = [{ schema: root, instance: [], conditions: [] }];
  let { schema, instance, conditions } = steps[0];
  // The last segment is the failed keyword itself.
  for (let i = 0; i < keywords.length - 1 && schema && typeof schema === 'object'; ) {
    const k = keywords[i];
    let next: any;
    let nextInstance = instance;
    let nextConditions = conditions;
    if ((k === 'properties' || k === 'dependentSchemas') && i + 1 < keywords.length - 1) {
      next = schema[k]?.[keywords[i + 1]];
      if (k === 'properties') nextInstance = [...instance, keywords[i + 1]];
      i += 2;
    } else if ((k === 'allOf' || k === 'anyOf' || k === 'oneOf') && i + 1 < keywords.length - 1) {
      next = schema[k]?.[Number(keywords[i + 1])];
      const tag = schema.discriminator?.propertyName;
      const value = tag ? next?.properties?.[tag]?.const : undefined;
      if (k === 'oneOf' && value !== undefined) nextConditions = [...conditions, `${named(instance, tag)} is ${value}`];
      i += 2;
    } else if (k === 'items' || k === 'additionalProperties') {
      next = schema[k];
      nextInstance = [...instance, instanceParts[instance.length] ?? ''];
      i += 1;
    } else if (k === 'then') {
      next = schema.then;
      nextConditions = [...conditions, ...constConditions(schema.if, instance)];
      i += 1;
    } else if (k === 'if' || k === 'else' || k === 'not') {
      next = schema[k];
      i += 1;
    } else {
      break;
    }
    schema = next;
    instance = nextInstance;
    conditions = nextConditions;
    steps.push({ schema, instance, conditions });
  }
  return steps;
}

/** An `if`'s `const` properties in words: "action is add_tag". */
function constConditions(condition: any, instance: string[]): string[] {
  return Object.entries<any>(condition?.properties ?? {})
    .filter(([, s]) => s && typeof s === 'object' && 'const' in s)
    .map(([name, s]) => `${named(instance, name)} is ${String(s.const)}`);
}

function valueAt(request: ValidatedRequest, instance: string[]): unknown {
  const [part, ...rest] = instance;
  const { requestBody, query, params } = request;
  let value: any = ({ requestBody, query, path: params } as Record<string, unknown>)[part];
  for (const key of rest) value = value === null || typeof value !== 'object' ? undefined : value[key];
  return value;
}

/**
 * For a failed `oneOf` or `anyOf`, the errors of the form the value meant: for a `discriminator`,
 * the form its property names (`kind: GOAL`); otherwise the form whose errors lie deepest in the
 * value (it matched the most of it), then the one with fewest. Nested choices are narrowed the
 * same way, outermost first.
 */
function narrowChoices(errors: ErrorObject[], operation: Operation, request: ValidatedRequest): ErrorObject[] {
  // A choice none of whose forms held (passingSchemas lists them when several did).
  const failed = (e: ErrorObject) => ['oneOf', 'anyOf'].includes(e.keyword) && !Array.isArray(e.params?.passingSchemas);
  const choices = errors.filter(failed);
  if (!choices.length) return errors;
  const choice = choices.reduce((a, b) => (b.schemaPath.length < a.schemaPath.length ? b : a));
  const prefix = `${choice.schemaPath}/`;
  const branches = new Map<string, ErrorObject[]>();
  const outside: ErrorObject[] = [];
  for (const e of errors) {
    if (e === choice) continue;
    if (!e.schemaPath.startsWith(prefix)) outside.push(e);
    else {
      const branch = e.schemaPath.slice(prefix.length).split('/')[0];
      branches.set(branch, [...(branches.get(branch) ?? []), e]);
    }
  }
  const at = stepsTo(choice, rootSchema(operation, choice.schemaPath)).pop()!;
  const tag = at.schema?.discriminator?.propertyName;
  if (typeof tag === 'string') {
    const value = valueAt(request, [...at.instance, tag]);
    const forms = at.schema[choice.keyword] as any[];
    const meant = forms.findIndex((form) => form?.properties?.[tag]?.const === value);
    if (meant >= 0) return narrowChoices([...(branches.get(String(meant)) ?? []), ...outside], operation, request);
    // A value that names no form: the property's own error, whatever the forms' errors were.
    const allowedValues = forms.map((form) => form?.properties?.[tag]?.const);
    const instancePath = `${choice.instancePath}/${tag}`;
    return [{ keyword: 'enum', instancePath, schemaPath: choice.schemaPath, params: { allowedValues } }];
  }
  const depth = (list: ErrorObject[]) => Math.max(...list.map((e) => e.instancePath.split('/').length));
  const nearer = (a: ErrorObject[], b: ErrorObject[]) =>
    depth(a) > depth(b) || (depth(a) === depth(b) && a.length < b.length);
  let nearest: ErrorObject[] | undefined;
  for (const list of branches.values()) if (!nearest || nearer(list, nearest)) nearest = list;
  return narrowChoices([...(nearest ?? [choice]), ...outside], operation, request);
}

const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'must be an ISO 8601 date-time with a time zone, such as 2027-01-31T12:00:00Z',
  date: 'must be a date (YYYY-MM-DD)',
  email: 'must be an email address',
  uri: 'must be an absolute URL',
};

export function validationError(errors: ErrorObject[], operation: Operation, request: ValidatedRequest = {}): AppError {
  errors = narrowChoices(errors, operation, request);
  const body = request.requestBody;
  const e0 = errors[0];
  if (e0?.keyword === 'parse') return invalid(`Malformed JSON: ${e0.message}`);
  // A schema's own words come first: they say what its rule is.
  const worded = e0 && schemaWords(e0, operation, request);
  if (worded) return worded;
  // Unknown fields next: PATCH must name them and list the accepted ones.
  const unknown = errors.find((e) => e.keyword === 'additionalProperties');
  if (unknown) {
    const steps = stepsTo(unknown, rootSchema(operation, unknown.schemaPath));
    const object = steps[steps.length - 1];
    const name = dotted([...object.instance, String(unknown.params.additionalProperty)]);
    const accepted = Object.keys(object.schema?.properties ?? {}).filter((p) => !isNever(object.schema.properties[p]));
    const list = accepted.length ? `; accepted fields are: ${accepted.join(', ')}` : '';
    return invalid(`Unknown field '${name}'${list}`, name);
  }
  const e = errors[0];
  // An event name outside the variant's enum: the handlers' words, naming every refused name
  // as retired or unknown, rather than Ajv's "events.1 must be one of ...".
  const variant = eventVariantOf(operation.operationId ?? '', body);
  const events = (body as { events?: unknown } | undefined)?.events;
  const names = Array.isArray(events) && events.every((n) => typeof n === 'string');
  if (variant && names && e.keyword === 'enum' && /^\/requestBody\/events\/\d+$/.test(e.instancePath)) {
    const refused = refusedEventsError(variant, events);
    if (refused) return refused;
  }
  const steps = stepsTo(e, rootSchema(operation, e.schemaPath));
  const at = steps[steps.length - 1];
  const when = at.conditions.length ? ` when ${at.conditions.join(' and ')}` : '';
  const parts = e.instancePath.split('/').filter(Boolean).map(unescapePointer);
  const location = parts[0];
  if (e.keyword === 'required') {
    const missing = String(e.params.missingProperty);
    if (!location && missing === 'requestBody') return invalid('A JSON request body is required');
    const field = [...parts.slice(1), missing].join('.');
    return invalid(`${field} is required${when}`, field);
  }
  if (e.keyword === 'dependentRequired' || e.keyword === 'dependencies') {
    const field = [...parts.slice(1), String(e.params.missingProperty)].join('.');
    const given = [...parts.slice(1), String(e.params.property)].join('.');
    return invalid(`${given} and ${field} go together: ${field} is required with ${given}`, field);
  }
  // customName with another eventType (ConversionCreate's `else`): only allowed when the `if` holds.
  const forbidden = e.keyword === 'not' ? at.schema?.not?.required : undefined;
  if (Array.isArray(forbidden) && forbidden.length === 1 && /\/else\/not$/.test(e.schemaPath)) {
    const owner = steps[steps.length - 2];
    const condition = constConditions(owner?.schema?.if, owner?.instance ?? []).join(' and ');
    if (condition) return invalid(`${forbidden[0]} is only allowed when ${condition}`, forbidden[0]);
  }
  const field = parts.slice(1).join('.') || undefined;
  const parameter = `${location === 'query' ? 'query parameter' : location} ${field}`;
  const what = location === 'requestBody' ? (field ?? 'the request body') : parameter;
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'enum') message = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
  if (e.keyword === 'const') message = `must be ${String(e.params.allowedValue)}`;
  if (e.keyword === 'format') message = FORMAT_WORDS[String(e.params.format)] ?? `must be a ${String(e.params.format)}`;
  // Lengths in words a person reads beside a form field, not Ajv's "must NOT have fewer than".
  const limit = Number(e.params.limit);
  if (e.keyword === 'minLength') message = limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`;
  if (e.keyword === 'maxLength') message = `must be at most ${limit} characters`;
  if (e.keyword === 'minimum') message = `must be at least ${limit}`;
  if (e.keyword === 'maximum') message = `must be at most ${limit}`;
  if (e.keyword === 'minItems') message = `must have at least ${limit} item${limit === 1 ? '' : 's'}`;
  if (e.keyword === 'maxItems') message = `must have at most ${limit} item${limit === 1 ? '' : 's'}`;
  if (e.keyword === 'type' && location === 'query') {
    message = e.params.type === 'integer' ? 'must be an integer' : `must be of type ${e.params.type}`;
  }
  return invalid(`${what} ${message}`, field);
}

/** The `x-message` of the innermost schema on the way to the error, said of the place it applies to. */
function schemaWords(e: ErrorObject, operation: Operation, request: ValidatedRequest): AppError | null {
  const steps = stepsTo(e, rootSchema(operation, e.schemaPath));
  const worded = steps.reverse().find((s) => typeof s.schema?.['x-message'] === 'string');
  if (!worded) return null;
  const place = worded.schema['x-field'] ? [...worded.instance, worded.schema['x-field']] : worded.instance;
  const message = String(worded.schema['x-message'])
    .replace(/\{path\}/g, dotted(worded.instance))
    .replace(/\{value\}/g, () => quoted(valueAt(request, worded.instance)));
  return invalid(message, dotted(place) || undefined);
}

/** A property declared only to be refused (`not: {}`): not among the accepted fields. */
const isNever = (schema: any) => schema === false || (!!schema?.not && !Object.keys(schema.not).length);
