// One handler map keyed by operationId; app.ts refuses to start when an operation of the
// contract has no handler here.
import { linkOperations } from '../../operations/links.ts';
import type { Services } from '../services.ts';
import { loadDefinition } from '../definition.ts';
import { linkHandlers } from './links.ts';
import { type BodyCheck, linkBulkHandlers } from './links-bulk.ts';
import { routingHandlers } from './routing.ts';
import { routingOperations } from '../../operations/routing.ts';
import { conversionHandlers } from './conversions.ts';
import { opsHandlers } from './ops.ts';
import { webhookHandlers } from './webhooks.ts';
import type { Handlers } from './types.ts';
import { qrCodeOperations } from '../../operations/qr-codes.ts';
import { workspaceObjectHandlers } from './workspace-objects.ts';

export type { Handlers } from './types.ts';

/** Every operation's handler; the type requires one for each operation of the contract. */
export function buildHandlers(services: Services, checkBody: BodyCheck): Handlers {
  return {
    ...opsHandlers(services),
    ...linkHandlers(services, linkOperations(services), loadDefinition()),
    ...routingHandlers(routingOperations(services)),
    ...linkBulkHandlers(services, linkOperations(services), loadDefinition(), checkBody),
    ...conversionHandlers(services),
    ...webhookHandlers(services),
    ...workspaceObjectHandlers(services, qrCodeOperations(services)),
  };
}
