// Single sign-on with OpenID Connect (openapi/dashboard.yaml, Single sign-on): a workspace's
// provider as its OWNER sets it, the start of a sign-in (the provider found by the email's
// domain) and its end (the code exchanged, the ID token checked, the person found or made).
// The provider is trusted for its own workspace only: signInWithSso (db/repos/sso.ts) holds
// that rule.
import type { Db } from '../db/knex.ts';
import * as oidc from 'openid-client';
import * as sso from '../db/repos/sso.ts';
import { forbidden, invalid, notFound, unavailable } from '../domain/errors.ts';
import { newSecret } from '../domain/sessions.ts';
import {
  emailDomain,
  MAX_SSO_DOMAINS,
  normalizeDomain,
  SSO_LOGIN_MS,
  SsoRefusal,
  type SsoRole,
} from '../domain/sso.ts';
import { openSecret, sealSecret } from '../webhooks/secrets.ts';
import { discoverProvider, failureReason, type ProviderConfigurations } from './sso-client.ts';

export interface SsoDeps {
  knex: Db;
  masterKey: Buffer;
  providers: ProviderConfigurations;
}

export interface SsoSettingsInput {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  domains: string[];
  defaultRole: SsoRole;
  enabled: boolean;
  passwordSignIn: boolean;
}

const settingsOf = (deps: SsoDeps, p: sso.SsoProviderRecord) => ({
  issuer: p.issuer,
  clientId: p.clientId,
  clientSecret: openSecret(deps.masterKey, p.clientSecretSealed),
});

const configurationOf = (deps: SsoDeps, p: sso.SsoProviderRecord) =>
  deps.providers.get(`${p.workspaceId}:${p.updatedAt}`, settingsOf(deps, p));

/** The issuer as OpenID Connect names it: an https URL without credentials, query or fragment. */
function issuerProblem(issuer: string): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'issuer must be an absolute https URL';
  }
  if (url.protocol !== 'https:') return 'issuer must be an https URL';
  if (url.username || url.password || url.search || url.hash)
    return 'issuer must not carry credentials, a query or a fragment';
  return null;
}

/**
 * Stores the workspace's provider after reading its discovery document through the network rules
 * (a provider the service cannot read is refused with 400 at `issuer`, before anything is stored).
 * The client secret is sealed with MASTER_KEY; left out, the stored one is kept.
 */
export async function saveSsoSettings(
  deps: SsoDeps,
  workspaceId: string,
  input: SsoSettingsInput,
  now: number,
  also?: Parameters<typeof sso.saveSsoProvider>[4],
): Promise<sso.SsoProviderRecord> {
  const issuer = input.issuer.trim();
  const problem = issuerProblem(issuer);
  if (problem) throw invalid(problem, 'issuer');
  const clientId = input.clientId.trim();
  if (!clientId) throw invalid('clientId must not be blank', 'clientId');
  const domains: string[] = [];
  input.domains.forEach((d, i) => {
    const domain = normalizeDomain(d);
    if (!domain) throw invalid(`domains.${i} must be a domain name such as example.com`, `domains.${i}`);
    if (!domains.includes(domain)) domains.push(domain);
  });
  if (!domains.length) throw invalid('domains must name at least one email domain', 'domains');
  if (domains.length > MAX_SSO_DOMAINS) throw invalid(`domains may name at most ${MAX_SSO_DOMAINS}`, 'domains');
  const stored = await sso.ssoProviderOf(deps.knex, workspaceId);
  const secret = input.clientSecret ?? (stored ? openSecret(deps.masterKey, stored.clientSecretSealed) : undefined);
  if (!secret) throw invalid('clientSecret is required when single sign-on is first set up', 'clientSecret');
  try {
    await discoverProvider({ issuer, clientId, clientSecret: secret }, deps.providers.network);
  } catch (err) {
    throw invalid(`The issuer's discovery document could not be read: ${failureReason(err)}`, 'issuer');
  }
  return sso.saveSsoProvider(
    deps.knex,
    workspaceId,
    {
      issuer,
      clientId,
      clientSecretSealed: sealSecret(deps.masterKey, secret),
      domains,
      defaultRole: input.defaultRole,
      enabled: input.enabled,
      passwordSignIn: input.passwordSignIn,
    },
    now,
    also,
  );
}

/**
 * Starts a sign-in through the provider of the email's domain: state, nonce and the PKCE verifier
 * kept server-side (the verifier sealed), bound to this browser by the secret the caller sets as
 * a cookie. `linkUserId`: the signed-in person who links their account.
 */
export async function beginSsoSignIn(
  deps: SsoDeps,
  email: string,
  redirectUri: string,
  linkUserId: string | null,
  now: number,
): Promise<{ authorizationUrl: string; browserSecret: string }> {
  const domain = emailDomain(email);
  if (!domain) throw invalid('email must be an email address', 'email');
  const provider = await sso.ssoProviderForEmail(deps.knex, email);
  if (!provider) throw notFound(`No single sign-on is set up for ${domain}; sign in with your password`);
  if (!provider.enabled) throw forbidden(`Single sign-on for ${domain} is turned off; sign in with your password`);
  let config: oidc.Configuration;
  try {
    config = await configurationOf(deps, provider);
  } catch {
    throw unavailable(
      `The single sign-on provider for ${domain} cannot be reached now; try again later`,
      'sso_provider_unreachable',
    );
  }
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email',
    response_type: 'code',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    login_hint: email.trim(),
  });
  const browserSecret = newSecret().token;
  await sso.startSsoLogin(
    deps.knex,
    {
      state,
      browserSecret,
      workspaceId: provider.workspaceId,
      nonce,
      verifierSealed: sealSecret(deps.masterKey, verifier),
      redirectUri,
      linkUserId,
    },
    now,
    SSO_LOGIN_MS,
  );
  return { authorizationUrl: url.href, browserSecret };
}

/**
 * Ends a sign-in where the provider sent the browser back: the sign-in under way used once, the
 * provider still enabled, the code exchanged (PKCE), the ID token's signature, issuer, audience,
 * expiry and nonce checked, a verified email of an allowed domain; then the person it signs in.
 * Every refusal is an SsoRefusal with the code the sign-in screen explains.
 */
export async function finishSsoSignIn(
  deps: SsoDeps,
  query: Record<string, string | undefined>,
  browserSecret: string | undefined,
  now: number,
): Promise<{ userId: string; workspaceId: string; created: boolean; linked: boolean }> {
  const state = query.state;
  const login = state && browserSecret ? await sso.takeSsoLogin(deps.knex, state, browserSecret, now) : undefined;
  if (!login) throw new SsoRefusal('expired', 'unknown, used, expired or another browser’s state');
  const provider = await sso.ssoProviderOf(deps.knex, login.workspaceId);
  if (!provider?.enabled) throw new SsoRefusal('disabled', 'the provider was turned off or removed');
  if (query.error) throw new SsoRefusal('provider_refused', `the provider answered ${query.error}`);
  let config: oidc.Configuration;
  try {
    config = await configurationOf(deps, provider);
  } catch (err) {
    throw new SsoRefusal('provider_unreachable', failureReason(err));
  }
  const currentUrl = new URL(login.redirectUri);
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string') currentUrl.searchParams.set(k, v);
  let claims: Record<string, unknown>;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: openSecret(deps.masterKey, login.verifierSealed),
      expectedState: state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
    claims = { ...tokens.claims() };
    // A provider may keep the email for its userinfo endpoint (OpenID Connect Core 5.4).
    if (typeof claims.email !== 'string')
      claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub))), ...claims };
  } catch (err) {
    throw new SsoRefusal('token_invalid', failureReason(err));
  }
  if (claims.email_verified !== true || typeof claims.email !== 'string')
    throw new SsoRefusal('email_unverified', 'the provider did not say the email is verified');
  const domain = emailDomain(claims.email);
  if (!domain || !provider.domains.includes(domain))
    throw new SsoRefusal('domain_not_allowed', `${domain} is not a domain of this provider`);
  const signedIn = await sso.signInWithSso(
    deps.knex,
    {
      workspaceId: provider.workspaceId,
      issuer: String(claims.iss),
      subject: String(claims.sub),
      email: claims.email,
      defaultRole: provider.defaultRole,
      linkUserId: login.linkUserId,
    },
    now,
  );
  return { ...signedIn, workspaceId: provider.workspaceId };
}
