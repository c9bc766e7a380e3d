// Single sign-on in the dashboard (openapi/dashboard.yaml, Single sign-on): the OWNER's settings
// of the workspace's provider, and signing in through it (src/operations/sso.ts). The sign-in
// under way is bound to the browser by the sl_sso cookie, which only the callback reads.
import { deleteSsoProvider, ssoProviderOf, type SsoProviderRecord } from '../../../db/repos/sso.ts';
import { notFound } from '../../../domain/errors.ts';
import { SSO_CALLBACK_PATH, SSO_COOKIE, SSO_LOGIN_MS, SsoRefusal } from '../../../domain/sso.ts';
import { beginSsoSignIn, finishSsoSignIn, saveSsoSettings, type SsoDeps } from '../../../operations/sso.ts';
import { parseCookies } from '../../../redirect/password.ts';
import type { Services } from '../../services.ts';
import { asPerson, audit, auditPerson, createdFields, diffFields } from '../../../operations/audit.ts';
import type { SecondFactorOperations } from '../../../operations/second-factors.ts';
import { pendingSignInCookie, signInAudited } from '../second-factor-sign-in.ts';
import { startSession } from '../../../operations/sessions.ts';
import { browserCookie, sessionCookie } from '../session.ts';
import type { DashboardHandlers, DashboardResult } from '../types.ts';

/** HttpOnly and Secure; Lax, so the provider's top-level redirect back carries it; for the callback's path only. */
const ssoCookie = (secret: string) =>
  `${SSO_COOKIE}=${secret}; Path=/app/api/sso; HttpOnly; Secure; SameSite=Lax; Max-Age=${SSO_LOGIN_MS / 1000}`;
const clearSsoCookie = () => `${SSO_COOKIE}=; Path=/app/api/sso; HttpOnly; Secure; SameSite=Lax; Max-Age=0`;

export function ssoHandlers(
  services: Services,
  factors: SecondFactorOperations,
): Pick<
  DashboardHandlers,
  'getSsoProvider' | 'putSsoProvider' | 'deleteSsoProvider' | 'startSsoSignIn' | 'linkSso' | 'finishSsoSignIn'
> {
  const { knex } = services.db;
  const deps: SsoDeps = { knex, masterKey: services.masterKey, providers: services.ssoProviders };
  /** The redirect URI: the dashboard's origin as the browser addressed it (registered at the provider). */
  const redirectUri = (origin: string) => `${origin}${SSO_CALLBACK_PATH}`;
  const present = (p: SsoProviderRecord, origin: string) => ({
    issuer: p.issuer,
    clientId: p.clientId,
    domains: p.domains,
    defaultRole: p.defaultRole,
    enabled: p.enabled,
    passwordSignIn: p.passwordSignIn,
    redirectUri: redirectUri(origin),
    createdAt: new Date(p.createdAt).toISOString(),
    updatedAt: new Date(p.updatedAt).toISOString(),
  });

  return {
    async getSsoProvider(_request, ctx): Promise<DashboardResult<'getSsoProvider'>> {
      const found = await ssoProviderOf(knex, ctx.workspace!.id);
      return { status: 200, body: { data: found ? present(found, ctx.origin) : null } };
    },

    async putSsoProvider({ body }, ctx): Promise<DashboardResult<'putSsoProvider'>> {
      const stored = await saveSsoSettings(deps, ctx.workspace!.id, body, Date.now(), (trx, before, after) => {
        const fields = (p: SsoProviderRecord) => ({
          issuer: p.issuer,
          clientId: p.clientId,
          domains: p.domains,
          defaultRole: p.defaultRole,
          enabled: p.enabled,
          passwordSignIn: p.passwordSignIn,
        });
        const changes = before ? diffFields(fields(before), fields(after)) : createdFields(fields(after));
        // The secret by name only, when one was given.
        if (body.clientSecret !== undefined) changes.clientSecret = {};
        return audit(trx, ctx.audit, ctx.workspace!.id, {
          action: before ? 'sso.updated' : 'sso.created',
          objectType: 'sso_provider',
          objectId: ctx.workspace!.id,
          changes,
        });
      });
      services.log.info({ workspaceId: ctx.workspace!.id, enabled: stored.enabled }, 'single sign-on was set');
      return { status: 200, body: { data: present(stored, ctx.origin) } };
    },

    async deleteSsoProvider(_request, ctx): Promise<DashboardResult<'deleteSsoProvider'>> {
      const gone = await deleteSsoProvider(knex, ctx.workspace!.id, (trx) =>
        audit(trx, ctx.audit, ctx.workspace!.id, {
          action: 'sso.deleted',
          objectType: 'sso_provider',
          objectId: ctx.workspace!.id,
        }),
      );
      if (!gone) throw notFound('Single sign-on is not set up');
      return { status: 204 };
    },

    async startSsoSignIn({ body }, ctx): Promise<DashboardResult<'startSsoSignIn'>> {
      const started = await beginSsoSignIn(deps, body.email, redirectUri(ctx.origin), null, Date.now());
      return {
        status: 200,
        body: { authorizationUrl: started.authorizationUrl },
        headers: { 'Set-Cookie': ssoCookie(started.browserSecret) },
      };
    },

    async linkSso(_request, ctx): Promise<DashboardResult<'linkSso'>> {
      const started = await beginSsoSignIn(
        deps,
        ctx.session!.email,
        redirectUri(ctx.origin),
        ctx.session!.userId,
        Date.now(),
      );
      return {
        status: 200,
        body: { authorizationUrl: started.authorizationUrl },
        headers: { 'Set-Cookie': ssoCookie(started.browserSecret) },
      };
    },

    async finishSsoSignIn({ query }, ctx): Promise<DashboardResult<'finishSsoSignIn'>> {
      const browserSecret = parseCookies(ctx.cookie)[SSO_COOKIE];
      try {
        const done = await finishSsoSignIn(
          deps,
          query as Record<string, string | undefined>,
          browserSecret,
          Date.now(),
        );
        services.log.info(
          { userId: done.userId, workspaceId: done.workspaceId, created: done.created, linked: done.linked },
          'signed in through single sign-on',
        );
        // The identity was linked by finishSsoSignIn's own transaction; its entry follows it.
        if (done.linked)
          await knex.transaction((trx) =>
            auditPerson(trx, asPerson(ctx.audit, done.userId), done.userId, {
              action: 'user.sso_linked',
              objectType: 'user',
              objectId: done.userId,
            }),
          );
        // A person who set up a second factor is asked for it after the provider too, as after
        // a password: the provider's owner is one workspace's, the factor is the person's own.
        const pending = await factors.challenge(done.userId, Date.now());
        if (pending) {
          return {
            status: 303,
            headers: {
              Location: `/app/login?second-factor=${pending.methods.join(',')}`,
              'Set-Cookie': [pendingSignInCookie(pending.token), clearSsoCookie()],
            },
          };
        }
        const { token, newBrowserToken } = await startSession(
          services,
          {
            userId: done.userId,
            userAgent: ctx.userAgent,
            client: ctx.client,
            browserToken: ctx.browserToken,
            notice: true,
          },
          (trx) => signInAudited(trx, ctx.audit, done.userId),
        );
        const cookies = [sessionCookie(token), clearSsoCookie()];
        if (newBrowserToken) cookies.push(browserCookie(newBrowserToken));
        return { status: 303, headers: { Location: '/app/', 'Set-Cookie': cookies } };
      } catch (err) {
        if (!(err instanceof SsoRefusal)) throw err;
        services.log.info({ code: err.code, detail: err.message }, 'a single sign-on was refused');
        return {
          status: 303,
          headers: { Location: `/app/login?sso_error=${err.code}`, 'Set-Cookie': clearSsoCookie() },
        };
      }
    },
  };
}
