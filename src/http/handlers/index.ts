// One handler map keyed by operationId. Operations of later issues answer 501 until built.
import { notImplemented } from '../errors';
import type { Services } from '../services';
import { loadDefinition } from '../definition';
import { linkHandlers } from './links';
import { conversionHandlers } from './conversions';
import { opsHandlers } from './ops';
import { webhookHandlers } from './webhooks';
import type { OperationHandler } from './types';

export type { OperationHandler } from './types';

const NOT_YET_BUILT: string[] = [];

export function buildHandlers(services: Services): Record<string, OperationHandler> {
  const definition = loadDefinition();
  const pending = Object.fromEntries(
    NOT_YET_BUILT.map((id) => [id, async () => { throw notImplemented(id); }]),
  ) as Record<string, OperationHandler>;
  return {
    ...pending,
    ...opsHandlers(services),
    ...linkHandlers(services, definition),
    ...conversionHandlers(services),
    ...webhookHandlers(services),
  };
}
