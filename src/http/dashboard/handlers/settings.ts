// The workspace and its settings in the dashboard (openapi/dashboard.yaml, Workspace and
// Settings): API keys, members, custom domains, tags and campaigns, under the same rules as
// the operator command line.
import { createHmac } from 'node:crypto';
import * as accounts from '../../../db/repos/accounts.ts';
import * as invitations from '../../../db/repos/invitations.ts';
import { isUniqueViolation } from '../../../db/knex.ts';
import * as workspaces from '../../../db/repos/workspaces.ts';
import { planHasApi, SCOPES, scopesOfRole, type Role, type Scope } from '../../../domain/access.ts';
import { claimExpired, claimExpiresAt, hostProblem, verificationRecord } from '../../../domain/domains.ts';
import { conflict, forbidden, invalid, notFound, quoted } from '../../../domain/errors.ts';
import { invitationUrl } from '../../../domain/sessions.ts';
import { domainVerified } from '../../../webhooks/domain-events.ts';
import type { Services } from '../../services.ts';
import type { DashboardContext, DashboardHandlers, DashboardResult } from '../types.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** Turns a unique-constraint violation into a 409 naming what is taken. */
async function unique<T>(work: Promise<T>, message: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(message);
    throw err;
  }
}

export function settingsHandlers(
  services: Services,
): Pick<
  DashboardHandlers,
  | 'getWorkspace' | 'listKeys' | 'createKey' | 'revokeKey' | 'listMembers' | 'updateMember' | 'removeMember'
  | 'listInvitations' | 'createInvitation' | 'revokeInvitation'
  | 'listDomains' | 'addDomain' | 'verifyDomain' | 'disableDomain' | 'listTags' | 'createTag' | 'listCampaigns' | 'createCampaign'
> {
  const { knex } = services.db;
  const { config } = services;
  const me = (ctx: DashboardContext) => ctx.session!.userId;
  const ws = (ctx: DashboardContext) => ctx.workspace!;

  /** What a domain must publish: a proof only this service (MASTER_KEY) can make for it. */
  const verification = (domain: workspaces.DomainRow) => ({
    cname: config.shortDomain.replace(/:\d+$/, ''),
    ...verificationRecord(domain.host, createHmac('sha256', services.masterKey).update(`domain ${domain.id}`).digest('hex').slice(0, 32)),
  });
  // A claim left unverified past its time shows as EXPIRED (domain/domains.ts, CLAIM_TTL_MS).
  const presentDomain = (d: workspaces.DomainRow) => ({
    id: d.id,
    host: d.host,
    status: claimExpired(d, Date.now()) ? ('EXPIRED' as const) : d.status,
    verifiedAt: iso(d.verified_at),
    expiresAt: iso(claimExpiresAt(d)),
    createdAt: iso(Number(d.created_at ?? 0))!,
    verification: verification(d),
  });
  const presentMember = (m: Awaited<ReturnType<typeof accounts.membersOf>>[number]) => ({
    userId: m.userId, email: m.email, role: m.role, joinedAt: iso(m.joinedAt)!,
  });
  const presentInvitation = (i: invitations.Invitation) => ({
    id: i.id, email: i.email, role: i.role, invitedBy: i.invitedBy, createdAt: iso(i.createdAt)!, expiresAt: iso(i.expiresAt)!,
  });

  async function memberOf(workspaceId: string, userId: string) {
    const member = (await accounts.membersOf(knex, workspaceId)).find((m) => m.userId === userId);
    if (!member) throw notFound('Member not found');
    return member;
  }

  return {
    async getWorkspace(_request, ctx): Promise<DashboardResult<'getWorkspace'>> {
      const w = ws(ctx);
      const api = planHasApi(w.plan);
      return {
        status: 200,
        body: {
          data: {
            id: w.id, name: w.name, plan: w.plan, role: w.role, createdAt: iso(w.createdAt)!, shortDomain: config.shortDomain,
            // What the key form offers; createKey (the repository) refuses the rest.
            keyScopes: scopesOfRole(w.role),
            features: { api, expiredUrl: api, webhooks: api, conversions: api && config.featureConversions, goals: api && config.featureConversions && config.featureGoals },
          },
        },
      };
    },

    async listKeys(_request, ctx): Promise<DashboardResult<'listKeys'>> {
      // A MEMBER manages their own keys; the others see every key of the workspace.
      const rows = await workspaces.keysOf(knex, ws(ctx).id, ws(ctx).role === 'MEMBER' ? me(ctx) : undefined);
      return {
        status: 200,
        body: {
          data: rows.map((k) => ({
            id: k.id, hint: k.hint, scopes: k.scopes as Scope[], expiresAt: iso(k.expiresAt), revokedAt: iso(k.revokedAt), createdAt: iso(k.createdAt)!,
            user: { id: k.userId, email: k.email },
          })),
        },
      };
    },

    async createKey({ body }, ctx): Promise<DashboardResult<'createKey'>> {
      const w = ws(ctx);
      if (!planHasApi(w.plan)) throw forbidden(`The ${w.plan} plan does not include the API; API keys need the Growth plan or above`);
      const unknown = body.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (unknown.length) throw invalid(`unknown scopes: ${unknown.map(quoted).join(', ')}`, 'scopes');
      let expiresAt: number | null = null;
      if (body.expiresAt) {
        expiresAt = Date.parse(body.expiresAt);
        if (!Number.isFinite(expiresAt)) throw invalid('expiresAt must be an ISO 8601 date-time', 'expiresAt');
        if (expiresAt <= Date.now()) throw invalid('expiresAt must be in the future', 'expiresAt');
      }
      const { id, key } = await workspaces.createKey(knex, w.id, me(ctx), [...new Set(body.scopes)], expiresAt);
      const row = (await workspaces.keysOf(knex, w.id, me(ctx))).find((k) => k.id === id)!;
      return {
        status: 201,
        body: {
          data: { id, hint: row.hint, scopes: row.scopes as Scope[], expiresAt: iso(row.expiresAt), revokedAt: null, createdAt: iso(row.createdAt)!, user: { id: row.userId, email: row.email } },
          key,
        },
      };
    },

    async revokeKey({ params }, ctx): Promise<DashboardResult<'revokeKey'>> {
      const key = await workspaces.findKeyOf(knex, ws(ctx).id, params.keyId);
      // A MEMBER's view holds only their own keys: another's answers as one that does not exist.
      if (!key || (ws(ctx).role === 'MEMBER' && key.user_id !== me(ctx))) throw notFound('API key not found');
      await workspaces.revokeKey(knex, key.id);
      return { status: 204 };
    },

    async listMembers(_request, ctx): Promise<DashboardResult<'listMembers'>> {
      return { status: 200, body: { data: (await accounts.membersOf(knex, ws(ctx).id)).map(presentMember) } };
    },

    async updateMember({ params, body }, ctx): Promise<DashboardResult<'updateMember'>> {
      const w = ws(ctx);
      const member = await memberOf(w.id, params.userId);
      await workspaces.setRole(knex, w.id, member.userId, body.role as Role, { keepOwner: true });
      return { status: 200, body: { data: presentMember(await memberOf(w.id, member.userId)) } };
    },

    async removeMember({ params }, ctx): Promise<DashboardResult<'removeMember'>> {
      const w = ws(ctx);
      const member = await memberOf(w.id, params.userId);
      if (member.role === 'OWNER' && w.role !== 'OWNER') throw forbidden('Only an OWNER removes an OWNER');
      // Ends the person's sessions too (src/db/repos/workspaces.ts).
      await workspaces.removeMember(knex, w.id, member.userId, { keepOwner: true });
      return { status: 204 };
    },

    async listInvitations(_request, ctx): Promise<DashboardResult<'listInvitations'>> {
      return { status: 200, body: { data: (await invitations.pendingInvitations(knex, ws(ctx).id, Date.now())).map(presentInvitation) } };
    },

    async createInvitation({ body }, ctx): Promise<DashboardResult<'createInvitation'>> {
      const w = ws(ctx);
      if (!EMAIL.test(body.email.trim())) throw invalid('email must be an email address', 'email');
      if (body.role === 'OWNER' && w.role !== 'OWNER') throw forbidden('Only an OWNER invites an OWNER');
      const { invitation, token } = await invitations.createInvitation(
        knex, { workspaceId: w.id, email: body.email, role: body.role as Role, invitedBy: me(ctx) }, Date.now(),
      );
      return { status: 201, body: { data: presentInvitation(invitation), inviteUrl: invitationUrl(config, token) } };
    },

    async revokeInvitation({ params }, ctx): Promise<DashboardResult<'revokeInvitation'>> {
      const w = ws(ctx);
      const now = Date.now();
      const invitation = await invitations.findPendingInvitation(knex, w.id, params.invitationId, now);
      if (!invitation) throw notFound('Invitation not found');
      if (invitation.role === 'OWNER' && w.role !== 'OWNER') throw forbidden('Only an OWNER revokes an invitation to be OWNER');
      await invitations.revokeInvitation(knex, w.id, invitation.id, now);
      return { status: 204 };
    },

    async listDomains(_request, ctx): Promise<DashboardResult<'listDomains'>> {
      return { status: 200, body: { data: (await workspaces.domainsOf(knex, ws(ctx).id)).map(presentDomain) } };
    },

    async addDomain({ body }, ctx): Promise<DashboardResult<'addDomain'>> {
      const host = body.host.trim().toLowerCase();
      const problem = hostProblem(host, [config.shortDomain, new URL(config.publicUrl).host]);
      if (problem) throw invalid(`host ${problem}`, 'host');
      // Another workspace's unverified claim does not stand in the way; a verified domain does (409).
      const id = await workspaces.addDomain(knex, ws(ctx).id, host);
      return { status: 201, body: { data: presentDomain((await workspaces.findDomainOf(knex, ws(ctx).id, id))!) } };
    },

    async verifyDomain({ params }, ctx): Promise<DashboardResult<'verifyDomain'>> {
      const domain = await workspaces.findDomainOf(knex, ws(ctx).id, params.domainId);
      if (!domain) throw notFound('Domain not found');
      if (claimExpired(domain, Date.now())) {
        throw conflict(`The claim on ${domain.host} lapsed unverified; add the domain again for a new record`);
      }
      const { txtName, txtValue } = verification(domain);
      let records: string[] = [];
      try {
        records = (await services.resolveTxt(txtName)).map((chunks) => chunks.join(''));
      } catch (err) {
        const code = (err as { code?: string }).code;
        throw conflict(`No TXT record ${txtName} was found${code && code !== 'ENOTFOUND' && code !== 'ENODATA' ? ` (${code})` : ''}; publish ${txtName} = ${txtValue}, then verify again`);
      }
      if (!records.includes(txtValue)) {
        throw conflict(`The TXT record ${txtName} does not hold ${txtValue}${records.length ? ` (found: ${records.map(quoted).join(', ')})` : ''}`);
      }
      await workspaces.setDomainStatus(knex, domain.id, 'ACTIVE', domainVerified(ctx.requestId));
      return { status: 200, body: { data: presentDomain((await workspaces.findDomainOf(knex, ws(ctx).id, domain.id))!) } };
    },

    async disableDomain({ params }, ctx): Promise<DashboardResult<'disableDomain'>> {
      const domain = await workspaces.findDomainOf(knex, ws(ctx).id, params.domainId);
      if (!domain) throw notFound('Domain not found');
      await workspaces.setDomainStatus(knex, domain.id, 'DISABLED');
      return { status: 200, body: { data: presentDomain((await workspaces.findDomainOf(knex, ws(ctx).id, domain.id))!) } };
    },

    async listTags(_request, ctx): Promise<DashboardResult<'listTags'>> {
      return { status: 200, body: { data: await workspaces.tagsOf(knex, ws(ctx).id) } };
    },

    async createTag({ body }, ctx): Promise<DashboardResult<'createTag'>> {
      const name = body.name.trim();
      if (!name) throw invalid('name must not be blank', 'name');
      const color = body.color ?? '#6b7280';
      const id = await unique(workspaces.createTag(knex, ws(ctx).id, name, color), `A tag named ${quoted(name)} already exists`);
      return { status: 201, body: { data: { id, name, color } } };
    },

    async listCampaigns(_request, ctx): Promise<DashboardResult<'listCampaigns'>> {
      return { status: 200, body: { data: (await workspaces.campaignsOf(knex, ws(ctx).id)).map((c) => ({ id: c.id, name: c.name, createdAt: iso(Number(c.created_at))! })) } };
    },

    async createCampaign({ body }, ctx): Promise<DashboardResult<'createCampaign'>> {
      const name = body.name.trim();
      if (!name) throw invalid('name must not be blank', 'name');
      const id = await workspaces.createCampaign(knex, ws(ctx).id, name);
      const created = (await workspaces.campaignsOf(knex, ws(ctx).id)).find((c) => c.id === id)!;
      return { status: 201, body: { data: { id, name, createdAt: iso(Number(created.created_at))! } } };
    },
  };
}
