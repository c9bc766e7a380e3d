// Type-level tests, checked by `npm run typecheck` (tsc), not run: each @ts-expect-error line
// must be an error, or the typecheck fails. They show that a handler cannot answer what the
// contract does not say, and that request types require exactly what the contract requires.
import type { components, operations } from '../../generated/api';
import type { Handlers, OperationHandler, ResultOf } from '../../src/http/handlers/types';

type Link = components['schemas']['Link'];
declare const link: Link;

// What the contract says compiles.
export const fine: OperationHandler<'getLink'> = async ({ params }) => ({ status: 200, body: { data: { ...link, id: params.id } } });
export const deleted: OperationHandler<'deleteWebhookV1'> = async () => ({ status: 204 });

// Handlers declare their result type (src/http/handlers/*.ts do): TypeScript checks a returned
// object literal for fields its type does not have only against a declared return type.
export const extraField: OperationHandler<'getLink'> = async (): Promise<ResultOf<'getLink'>> =>
  // @ts-expect-error a field the Link schema does not have
  ({ status: 200, body: { data: { ...link, secret: 'x' } } });

// @ts-expect-error a Link without its required `slug`
export const missingField: OperationHandler<'getLink'> = async () => ({ status: 200, body: { data: { id: link.id, originalUrl: link.originalUrl } } });

// @ts-expect-error a status getLink does not declare (errors are thrown as AppError, never answered)
export const undeclaredStatus: OperationHandler<'getLink'> = async () => ({ status: 201, body: { data: link } });

// @ts-expect-error createLink answers 201, not 200
export const wrongSuccess: OperationHandler<'createLink'> = async () => ({ status: 200, body: { data: link } });

// @ts-expect-error the envelope is { data }, not the Link itself
export const noEnvelope: OperationHandler<'getLink'> = async () => ({ status: 200, body: link });

// @ts-expect-error a path parameter the operation does not have
export const unknownParam: OperationHandler<'getLink'> = async ({ params }) => ({ status: 200, body: { data: { ...link, id: params.linkId } } });

// The handler map needs every operation.
// @ts-expect-error getReadiness (and the others) are missing
export const incomplete: Handlers = { getHealth: async () => ({ status: 200, body: { status: 'ok' } }) };

// A client creating a link needs only `url`: defaults (redirectType TEMPORARY) do not make a
// field required in the request types (openapi-typescript's defaultNonNullable is off for them).
type LinkCreateBody = operations['createLink']['requestBody']['content']['application/json'];
export const onlyUrl: LinkCreateBody = { url: 'https://example.com' };
// @ts-expect-error url is required
export const noUrl: LinkCreateBody = { slug: 'x' };
