// Turns openapi-backend's Ajv errors into the contract's single `{ error, field }` message (components/schemas/Error.yaml).
import type { ErrorObject } from 'ajv';
import { AppError, invalid } from '../domain/errors.ts';

type Operation = { operationId?: string; requestBody?: any };

function acceptedFields(operation: Operation): string[] {
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  return Object.keys(schema?.properties ?? {});
}

export function validationError(errors: ErrorObject[], operation: Operation): AppError {
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
  if (e.keyword === 'type' && location === 'query') message = `must be ${e.params.type === 'integer' ? 'an integer' : `of type ${e.params.type}`}`;
  return invalid(`${what} ${message}`, field);
}
