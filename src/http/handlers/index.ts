// One handler map keyed by operationId; app.ts refuses to start when an operation of the
// contract has no handler here.
import type { Services } from '../services';
import { loadDefinition } from '../definition';
import { linkHandlers } from './links';
import { conversionHandlers } from './conversions';
import { opsHandlers } from './ops';
import { webhookHandlers } from './webhooks';
import type { Handlers } from './types';

export type { Handlers } from './types';

/** Every operation's handler; the type requires one for each operation of the contract. */
export function buildHandlers(services: Services): Handlers {
  return {
    ...opsHandlers(services),
    ...linkHandlers(services, loadDefinition()),
    ...conversionHandlers(services),
    ...webhookHandlers(services),
  };
}
