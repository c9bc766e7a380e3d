// The workspace and its settings in the dashboard (openapi/dashboard.yaml, Workspace and
// Settings): API keys, members and invitations, custom domains, tags and campaigns, through their
// operations in src/operations/.
import * as accounts from '../../../db/repos/accounts.ts';
import * as invitations from '../../../db/repos/invitations.ts';
import { type DomainRow, domainsOf } from '../../../db/repos/domains.ts';
import { campaignsOf } from '../../../db/repos/workspace-objects.ts';
import { planHasApi, scopesOfRole, type Role, type Scope } from '../../../domain/access.ts';
import { claimExpired, claimExpiresAt } from '../../../domain/domains.ts';
import { createCampaign } from '../../../operations/campaigns.ts';
import { addDomain, disableDomain, domainOf, verification, verifyDomain } from '../../../operations/domains.ts';
import { createKey, keysOf, revokeKey } from '../../../operations/keys.ts';
import { changeRole, invite, memberOf, removeMember, revokeInvitation } from '../../../operations/members.ts';
import { renameWorkspace } from '../../../operations/workspaces.ts';
import { audit, audited, diffFields } from '../../../operations/audit.ts';
import { createTag, deleteTag, listTagsWithLinkCounts, updateTag } from '../../../operations/tags.ts';
import type { Services } from '../../services.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult, WorkspaceContext } from '../types.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export function settingsHandlers(
  services: Services,
): Pick<
  DashboardHandlers,
  | 'getWorkspace'
  | 'updateWorkspace'
  | 'listKeys'
  | 'createKey'
  | 'revokeKey'
  | 'listMembers'
  | 'updateMember'
  | 'removeMember'
  | 'listInvitations'
  | 'createInvitation'
  | 'revokeInvitation'
  | 'listDomains'
  | 'addDomain'
  | 'verifyDomain'
  | 'disableDomain'
  | 'listTags'
  | 'createTag'
  | 'updateTag'
  | 'deleteTag'
  | 'listCampaigns'
  | 'createCampaign'
> {
  const { knex } = services.db;
  const { config } = services;
  const me = (ctx: DashboardContext) => ctx.session!.userId;
  const ws = (ctx: DashboardContext) => ctx.workspace!;
  const who = (ctx: DashboardContext) => ({ workspace: ws(ctx), userId: me(ctx) });
  const domainDeps = { knex, config, masterKey: services.masterKey, resolveTxt: services.resolveTxt };
  // A claim left unverified past its time shows as EXPIRED (domain/domains.ts, CLAIM_TTL_MS).
  const presentDomain = (d: DomainRow) => ({
    id: d.id,
    host: d.host,
    status: claimExpired(d, Date.now()) ? ('EXPIRED' as const) : d.status,
    verifiedAt: iso(d.verified_at),
    expiresAt: iso(claimExpiresAt(d)),
    createdAt: iso(Number(d.created_at ?? 0))!,
    verification: verification(domainDeps, d),
  });
  const presentMember = (m: Awaited<ReturnType<typeof accounts.membersOf>>[number]) => ({
    userId: m.userId,
    email: m.email,
    role: m.role,
    joinedAt: iso(m.joinedAt)!,
  });
  const presentInvitation = (i: invitations.Invitation) => ({
    id: i.id,
    email: i.email,
    role: i.role,
    invitedBy: i.invitedBy,
    createdAt: iso(i.createdAt)!,
    expiresAt: iso(i.expiresAt)!,
  });

  const presentWorkspace = (w: WorkspaceContext) => {
    const api = planHasApi(w.plan);
    return {
      id: w.id,
      name: w.name,
      plan: w.plan,
      role: w.role,
      createdAt: iso(w.createdAt)!,
      shortDomain: config.shortDomain,
      destinationFetch: config.destinationFetch,
      // What the key form offers; createKey (the repository) refuses the rest.
      keyScopes: scopesOfRole(w.role),
      features: {
        api,
        expiredUrl: api,
        webhooks: api,
        conversions: api && config.featureConversions,
        goals: api && config.featureConversions && config.featureGoals,
      },
    };
  };

  return {
    async getWorkspace(_request, ctx): Promise<DashboardResult<'getWorkspace'>> {
      return { status: 200, body: { data: presentWorkspace(ws(ctx)) } };
    },

    async updateWorkspace({ body }, ctx): Promise<DashboardResult<'updateWorkspace'>> {
      const before = ws(ctx).name;
      const name = await audited(
        knex,
        ctx.audit,
        ws(ctx).id,
        (trx) => renameWorkspace(trx, ws(ctx).id, body.name),
        (after) => ({
          action: 'workspace.updated',
          objectType: 'workspace',
          objectId: ws(ctx).id,
          changes: diffFields({ name: before }, { name: after }),
        }),
      );
      return { status: 200, body: { data: presentWorkspace({ ...ws(ctx), name }) } };
    },

    async listKeys(_request, ctx): Promise<DashboardResult<'listKeys'>> {
      const rows = await keysOf(knex, who(ctx));
      return {
        status: 200,
        body: {
          data: rows.map((k) => ({
            id: k.id,
            name: k.name,
            hint: k.hint,
            scopes: k.scopes as Scope[],
            expiresAt: iso(k.expiresAt),
            revokedAt: iso(k.revokedAt),
            createdAt: iso(k.createdAt)!,
            lastUsedAt: iso(k.lastUsedAt),
            user: { id: k.userId, email: k.email },
          })),
        },
      };
    },

    async createKey({ body }, ctx): Promise<DashboardResult<'createKey'>> {
      const { row, key } = await audited(
        knex,
        ctx.audit,
        ws(ctx).id,
        (trx) => createKey(trx, who(ctx), body),
        ({ row }) => ({
          action: 'api_key.created',
          objectType: 'api_key',
          objectId: row.id,
          changes: { ...diffFields(null, { name: row.name, scopes: row.scopes, expiresAt: row.expiresAt }), key: {} },
        }),
      );
      const id = row.id;
      return {
        status: 201,
        body: {
          data: {
            id,
            name: row.name,
            hint: row.hint,
            scopes: row.scopes as Scope[],
            expiresAt: iso(row.expiresAt),
            revokedAt: null,
            createdAt: iso(row.createdAt)!,
            lastUsedAt: null,
            user: { id: row.userId, email: row.email },
          },
          key,
        },
      };
    },

    async revokeKey({ params }, ctx): Promise<DashboardResult<'revokeKey'>> {
      await audited(
        knex,
        ctx.audit,
        ws(ctx).id,
        (trx) => revokeKey(trx, who(ctx), params.keyId),
        () => ({ action: 'api_key.revoked', objectType: 'api_key', objectId: params.keyId }),
      );
      return { status: 204 };
    },

    async listMembers(_request, ctx): Promise<DashboardResult<'listMembers'>> {
      return { status: 200, body: { data: (await accounts.membersOf(knex, ws(ctx).id)).map(presentMember) } };
    },

    async updateMember({ params, body }, ctx): Promise<DashboardResult<'updateMember'>> {
      let before: Role | undefined;
      const member = await audited(
        knex,
        ctx.audit,
        ws(ctx).id,
        async (trx) => {
          before = (await memberOf(trx, ws(ctx).id, params.userId)).role as Role;
          return changeRole(trx, ws(ctx).id, params.userId, body.role as Role);
        },
        (m) => ({
          action: 'member.role_changed',
          objectType: 'member',
          objectId: m.userId,
          changes: diffFields({ role: before }, { role: m.role }),
        }),
      );
      return { status: 200, body: { data: presentMember(member) } };
    },

    async removeMember({ params }, ctx): Promise<DashboardResult<'removeMember'>> {
      await audited(
        knex,
        ctx.audit,
        ws(ctx).id,
        (trx) => removeMember(trx, who(ctx), params.userId),
        () => ({ action: 'member.removed', objectType: 'member', objectId: params.userId }),
      );
      return { status: 204 };
    },

    async listInvitations(_request, ctx): Promise<DashboardResult<'listInvitations'>> {
      return {
        status: 200,
        body: { data: (await invitations.pendingInvitations(knex, ws(ctx).id, Date.now())).map(presentInvitation) },
      };
    },

    async createInvitation({ body }, ctx): Promise<DashboardResult<'createInvitation'>> {
      const { invitation, inviteUrl } = await invite(
        services,
        who(ctx),
        { email: body.email, role: body.role as Role },
        (trx, made) =>
          audit(trx, ctx.audit, ws(ctx).id, {
            action: 'invitation.created',
            objectType: 'invitation',
            objectId: made.id,
            changes: { ...diffFields(null, { email: made.email, role: made.role }), token: {} },
          }),
      );
      // Mailed: the link goes only to the invited email, never to the screen.
      const link = inviteUrl ? { mailed: false, inviteUrl } : { mailed: true };
      return { status: 201, body: { data: presentInvitation(invitation), ...link } };
    },

    async revokeInvitation({ params }, ctx): Promise<DashboardResult<'revokeInvitation'>> {
      await audited(
        knex,
        ctx.audit,
        ws(ctx).id,
        (trx) => revokeInvitation(trx, who(ctx), params.invitationId),
        () => ({ action: 'invitation.revoked', objectType: 'invitation', objectId: params.invitationId }),
      );
      return { status: 204 };
    },

    async listDomains(_request, ctx): Promise<DashboardResult<'listDomains'>> {
      return { status: 200, body: { data: (await domainsOf(knex, ws(ctx).id)).map(presentDomain) } };
    },

    async addDomain({ body }, ctx): Promise<DashboardResult<'addDomain'>> {
      const id = await audited(
        knex,
        ctx.audit,
        ws(ctx).id,
        (trx) => addDomain({ ...domainDeps, knex: trx }, ws(ctx).id, body.host),
        (domainId) => ({
          action: 'domain.added',
          objectType: 'domain',
          objectId: domainId,
          changes: diffFields(null, { host: body.host.trim().toLowerCase() }),
        }),
      );
      return { status: 201, body: { data: presentDomain(await domainOf(knex, ws(ctx).id, id)) } };
    },

    async verifyDomain({ params }, ctx): Promise<DashboardResult<'verifyDomain'>> {
      await verifyDomain(domainDeps, ws(ctx).id, params.domainId, ctx.requestId, ctx.audit);
      // The host serves its /.well-known/ documents from now on here; other processes follow the change feed.
      services.wellKnown.forget();
      return { status: 200, body: { data: presentDomain(await domainOf(knex, ws(ctx).id, params.domainId)) } };
    },

    async disableDomain({ params }, ctx): Promise<DashboardResult<'disableDomain'>> {
      await audited(
        knex,
        ctx.audit,
        ws(ctx).id,
        (trx) => disableDomain(trx, ws(ctx).id, params.domainId),
        () => ({
          action: 'domain.disabled',
          objectType: 'domain',
          objectId: params.domainId,
          changes: { status: { to: 'DISABLED' } },
        }),
      );
      services.wellKnown.forget();
      return { status: 200, body: { data: presentDomain(await domainOf(knex, ws(ctx).id, params.domainId)) } };
    },

    async listTags(_request, ctx): Promise<DashboardResult<'listTags'>> {
      return { status: 200, body: { data: await listTagsWithLinkCounts(knex, ws(ctx).id) } };
    },

    async createTag({ body }, ctx): Promise<DashboardResult<'createTag'>> {
      return { status: 201, body: { data: await createTag(knex, ctx.audit, ws(ctx).id, body) } };
    },

    // The public API's rules and code (operations/tags.ts): a taken name 409, another
    // workspace's tag 404, and deleting takes the tag off its links without link.updated.
    async updateTag({ params, body }, ctx): Promise<DashboardResult<'updateTag'>> {
      return { status: 200, body: { data: await updateTag(knex, ctx.audit, ws(ctx).id, params.tagId, body) } };
    },

    async deleteTag({ params }, ctx): Promise<DashboardResult<'deleteTag'>> {
      await deleteTag(knex, ctx.audit, ws(ctx).id, params.tagId);
      return { status: 204 };
    },

    async listCampaigns(_request, ctx): Promise<DashboardResult<'listCampaigns'>> {
      return {
        status: 200,
        body: {
          data: (await campaignsOf(knex, ws(ctx).id)).map((c) => ({
            id: c.id,
            name: c.name,
            createdAt: iso(Number(c.created_at))!,
          })),
        },
      };
    },

    async createCampaign({ body }, ctx): Promise<DashboardResult<'createCampaign'>> {
      const { id, name, createdAt } = await audited(
        knex,
        ctx.audit,
        ws(ctx).id,
        (trx) => createCampaign(trx, ws(ctx).id, body),
        (c) => ({
          action: 'campaign.created',
          objectType: 'campaign',
          objectId: c.id,
          changes: diffFields(null, { name: c.name }),
        }),
      );
      return { status: 201, body: { data: { id, name, createdAt: iso(createdAt)! } } };
    },
  };
}
