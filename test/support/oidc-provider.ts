// A real OpenID provider for the single sign-on suites: oidc-provider on 127.0.0.1 over HTTPS
// with the test certificate, one confidential client registered with a service's redirect URI,
// PKCE required, and an interaction step that signs in the account the test names at once (no
// forms to fill). `tamper` rewrites the ID token the token endpoint answers, signed again with
// the provider's own key: a well-signed token with a wrong audience or an expiry in the past,
// or one signed with a stranger's key.
import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Provider from 'oidc-provider';
import { testCertificate, type TestServer } from './server';

export interface TestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
}

export type IdTokenClaims = Record<string, unknown>;

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next interaction signs in. */
  loginAs(account: TestAccount): void;
  /** Rewrites the next ID tokens (until set to undefined); `strangerKey` signs with a key the provider does not publish. */
  tamper: ((claims: IdTokenClaims) => IdTokenClaims) | undefined;
  strangerKey: boolean;
  stop(): Promise<void>;
}

function signJwt(header: Record<string, unknown>, claims: IdTokenClaims, key: KeyObject): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${part(header)}.${part(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

/** Starts a provider whose client sends people back to `redirectUri`. */
export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  const tls = await testCertificate();
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const kid = randomUUID();
  const jwk = { ...(privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid, alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, TestAccount>();
  let current: TestAccount | undefined;
  const clientId = `shortlink-${randomUUID().slice(0, 8)}`;
  const clientSecret = `secret-${randomUUID()}`;
  let handler: ((req: any, res: any) => void) | undefined;
  let provider: Provider;

  const server = https.createServer({ cert: tls.cert, key: tls.key }, async (req, res) => {
    try {
      if (req.url?.startsWith('/interaction/')) {
        // The person "signs in" at the provider: the account the test named, consent given.
        const details = await provider.interactionDetails(req, res);
        const account = current!;
        accounts.set(account.sub, account);
        const grant = new provider.Grant({ accountId: account.sub, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: account.sub }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      handler!(req, res);
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk as any] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: async () => ({ ...account }) } : undefined;
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomUUID()] },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
  });
  const test: TestProvider = {
    issuer,
    clientId,
    clientSecret,
    loginAs(account) {
      current = account;
    },
    tamper: undefined,
    strangerKey: false,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  provider.use(async (ctx: { path: string; body: unknown }, next: () => Promise<void>) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && body?.id_token && (test.tamper || test.strangerKey)) {
      const [header, claims] = body.id_token
        .split('.')
        .slice(0, 2)
        .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
      body.id_token = signJwt(
        header,
        test.tamper ? test.tamper(claims) : claims,
        test.strangerKey ? stranger : privateKey,
      );
    }
  });
  handler = provider.callback();
  return test;
}

/** Writes the test certificate to a file for SSO_CA_FILE; the env a server needs to reach the provider. */
export async function ssoTestEnv(): Promise<Record<string, string>> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-sso-ca-')), 'ca.pem');
  fs.writeFileSync(file, (await testCertificate()).cert);
  return { SSO_ALLOW_PRIVATE_NETWORKS: '1', SSO_CA_FILE: file };
}

/** A browser's cookie jar for one host, as far as the provider needs one. */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(header: string | string[] | undefined) {
    for (const line of Array.isArray(header) ? header : header ? [header] : []) {
      const [pair] = line.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

function getAtProvider(url: URL, jar: Jar, ca: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: 'GET', ca, headers: { cookie: jar.header() } }, (res) => {
      jar.take(res.headers['set-cookie']);
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Goes from an authorization URL through the provider (its redirects, the interaction) to the
 * service's callback address, as a browser would; answers that address's path and query.
 */
export async function throughProvider(authorizationUrl: string): Promise<string> {
  const ca = (await testCertificate()).cert;
  const jar = new Jar();
  let url = new URL(authorizationUrl);
  for (let hop = 0; hop < 10; hop++) {
    const res = await getAtProvider(url, jar, ca);
    if (!res.location) throw new Error(`the provider answered ${res.status} at ${url.pathname} without a redirect`);
    const next = new URL(res.location, url);
    if (next.pathname === '/app/api/sso/callback') return `${next.pathname}${next.search}`;
    url = next;
  }
  throw new Error('the provider never sent the browser back');
}

/** The `name=value` of a cookie named `name` in an answer's Set-Cookie. */
export function setCookie(headers: Record<string, unknown>, name: string): string | undefined {
  const all = headers['set-cookie'];
  for (const line of Array.isArray(all) ? all : all ? [String(all)] : [])
    if (String(line).startsWith(`${name}=`)) return String(line).split(';')[0];
  return undefined;
}

/** The redirect URI a test server's client registers. */
export const callbackOf = (server: TestServer) => `${server.url}/app/api/sso/callback`;
