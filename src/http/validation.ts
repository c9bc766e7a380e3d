// Turns openapi-backend's Ajv errors into the interface's single `{ error, field }` message.
import type { ErrorObject } from 'ajv';
import { AppError, invalid } from '../domain/errors.ts';
import { EVENT_NAME_OPERATIONS, refusedEventsError } from './event-names.ts';

type Operation = { operationId?: string; requestBody?: any };

const bodySchema = (operation: Operation): any => operation.requestBody?.content?.['application/json']?.schema;

function acceptedFields(operation: Operation): string[] {
  return Object.keys(bodySchema(operation)?.properties ?? {});
}

/**
 * A body schema's `if`/`then`/`else` in words (ConversionCreate: customName goes with eventType
 * custom, and only with it): "customName is required when eventType is custom" for a failed
 * `then` (a `required`), "customName is only allowed when eventType is custom" for a failed
 * `else` (a `not` of a `required`). Null for any other error.
 */
function conditionalError(e: ErrorObject, operation: Operation): AppError | null {
  const branch = /^#\/properties\/requestBody\/(then|else)\//.exec(e.schemaPath)?.[1];
  const schema = bodySchema(operation);
  if (!branch || !schema?.if) return null;
  const condition = Object.entries<any>(schema.if.properties ?? {})
    .filter(([, s]) => s && typeof s === 'object' && 'const' in s)
    .map(([name, s]) => `${name} is ${String(s.const)}`)
    .join(' and ');
  if (!condition) return null;
  if (branch === 'then' && e.keyword === 'required') {
    const missing = String(e.params.missingProperty);
    return invalid(`${missing} is required when ${condition}`, missing);
  }
  const forbidden = schema.else?.not?.required;
  if (branch === 'else' && e.keyword === 'not' && Array.isArray(forbidden) && forbidden.length === 1) {
    return invalid(`${forbidden[0]} is only allowed when ${condition}`, forbidden[0]);
  }
  return null;
}

export function validationError(errors: ErrorObject[], operation: Operation, body?: unknown): AppError {
  // Unknown fields first: PATCH must name them and list the accepted ones.
  const unknown = errors.filter((e) => e.keyword === 'additionalProperties');
  if (unknown.length) {
    const first = unknown[0];
    const parts = first.instancePath.split('/').filter(Boolean);
    const name = [...parts.slice(1), String(first.params.additionalProperty)].join('.');
    const accepted = parts.length <= 1 ? acceptedFields(operation) : [];
    const list = accepted.length ? `; accepted fields are: ${accepted.join(', ')}` : '';
    return invalid(`Unknown field '${name}'${list}`, name);
  }
  const e = errors[0];
  if (e.keyword === 'parse') return invalid(`Malformed JSON: ${e.message}`);
  // An event name outside the variant's enum: the handlers' words, naming every refused name
  // as retired or unknown, rather than Ajv's "events.1 must be one of ...".
  const variant = EVENT_NAME_OPERATIONS[operation.operationId ?? ''];
  const events = (body as { events?: unknown } | undefined)?.events;
  if (variant && e.keyword === 'enum' && /^\/requestBody\/events\/\d+$/.test(e.instancePath) && Array.isArray(events) && events.every((n) => typeof n === 'string')) {
    const refused = refusedEventsError(variant, events);
    if (refused) return refused;
  }
  const conditional = conditionalError(e, operation);
  if (conditional) return conditional;
  const parts = e.instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const location = parts[0];
  if (e.keyword === 'required') {
    const missing = String(e.params.missingProperty);
    if (!location && missing === 'requestBody') return invalid('A JSON request body is required');
    const field = [...parts.slice(1), missing].join('.');
    return invalid(`${field} is required`, field);
  }
  const field = parts.slice(1).join('.') || undefined;
  const what = location === 'requestBody' ? (field ?? 'the request body') : `${location === 'query' ? 'query parameter' : location} ${field}`;
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'enum') message = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
  // Lengths in words a person reads beside a form field, not Ajv's "must NOT have fewer than".
  const limit = Number(e.params.limit);
  if (e.keyword === 'minLength') message = limit === 1 ? 'must not be empty' : `must be at least ${limit} characters`;
  if (e.keyword === 'maxLength') message = `must be at most ${limit} characters`;
  if (e.keyword === 'minItems') message = `must have at least ${limit} item${limit === 1 ? '' : 's'}`;
  if (e.keyword === 'maxItems') message = `must have at most ${limit} item${limit === 1 ? '' : 's'}`;
  if (e.keyword === 'type' && location === 'query') message = `must be ${e.params.type === 'integer' ? 'an integer' : `of type ${e.params.type}`}`;
  return invalid(`${what} ${message}`, field);
}
