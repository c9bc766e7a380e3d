// A custom domain's app deep-link documents in the dashboard (openapi/dashboard.yaml, Settings):
// read by any member, replaced by an OWNER or ADMIN (the contract's x-roles), through
// src/operations/app-links.ts. This process forgets what it served at once; the others when
// the change feed reaches them.
import { domainAppLinks, setDomainAppLinks, type AppLinksOf } from '../../../operations/app-links.ts';
import type { Services } from '../../services.ts';
import { audited } from '../../../operations/audit.ts';
import type { DashboardHandlers, DashboardResult } from '../types.ts';

const present = (a: AppLinksOf) => ({
  domainId: a.domainKey,
  host: a.host,
  served: a.served,
  apple: a.apple as Record<string, unknown> | null,
  android: a.android as unknown[] | null,
  updatedAt: a.updatedAt === null ? null : new Date(a.updatedAt).toISOString(),
});

export function appLinksHandlers(
  services: Services,
): Pick<DashboardHandlers, 'getDomainAppLinks' | 'putDomainAppLinks'> {
  const { knex } = services.db;
  return {
    async getDomainAppLinks({ params }, ctx): Promise<DashboardResult<'getDomainAppLinks'>> {
      return { status: 200, body: { data: present(await domainAppLinks(knex, ctx.workspace!.id, params.domainId)) } };
    },

    async putDomainAppLinks({ params, body }, ctx): Promise<DashboardResult<'putDomainAppLinks'>> {
      const stored = await audited(
        knex,
        ctx.audit,
        ctx.workspace!.id,
        (trx) => setDomainAppLinks(trx, ctx.workspace!.id, params.domainId, body),
        (a) => ({
          action: 'domain.app_links_changed',
          objectType: 'domain',
          objectId: params.domainId,
          changes: { apple: { to: a.apple }, android: { to: a.android } },
        }),
      );
      services.wellKnown.forget();
      return { status: 200, body: { data: present(stored) } };
    },
  };
}
