// Every operation of the dashboard's contract with its handler.
import type { LinkOperations } from '../../../operations/links.ts';
import { linkOperations } from '../../../operations/links.ts';
import type { Services } from '../../services.ts';
import type { DashboardHandlers } from '../types.ts';
import { accountHandlers } from './account.ts';
import { auditHandlers } from './audit.ts';
import { appLinksHandlers } from './app-links.ts';
import { conversionHandlers } from './conversions.ts';
import { goalHandlers } from './goals.ts';
import { linkHandlers } from './links.ts';
import { reportHandlers } from './reports.ts';
import { settingsHandlers } from './settings.ts';
import { webhookDashboardHandlers } from './webhooks.ts';
import { pageHandlers } from './pages.ts';
import { pageOperations } from '../../../operations/pages.ts';
import { routingOperations } from '../../../operations/routing.ts';
import { routingHandlers } from './routing.ts';
import { secondFactorOperations } from '../../../operations/second-factors.ts';
import { secondFactorHandlers } from './second-factors.ts';
import { passkeyHandlers } from './passkeys.ts';
import { sessionHandlers } from './sessions.ts';
import { ssoHandlers } from './sso.ts';

export function dashboardHandlers(
  services: Services,
  operations: LinkOperations = linkOperations(services),
): DashboardHandlers {
  const factors = secondFactorOperations(services);
  return {
    ...accountHandlers(services, factors),
    ...secondFactorHandlers(services, factors),
    ...passkeyHandlers(services),
    ...auditHandlers(services),
    ...sessionHandlers(services),
    ...linkHandlers(services, operations),
    ...settingsHandlers(services),
    ...appLinksHandlers(services),
    ...goalHandlers(services),
    ...conversionHandlers(services),
    ...reportHandlers(services),
    ...webhookDashboardHandlers(services),
    ...pageHandlers(services, pageOperations(services, operations)),
    ...routingHandlers(routingOperations(services)),
    ...ssoHandlers(services, factors),
  };
}
