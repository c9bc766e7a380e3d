// The service's side of OpenID Connect (openid-client): reading a provider's discovery document
// and keys, and the authorization code grant. The issuer is named by a workspace's owner, so every
// request the server makes to it goes through the deliveries' network rules (webhooks/ssrf.ts:
// https only, no private, loopback, link-local or metadata address, the vetted address pinned
// against DNS rebinding), with a deadline and a size cap; redirects are not followed.
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import * as oidc from 'openid-client';
import { type NetworkPolicy, RefusedTarget, refusalReason, vetTarget } from '../webhooks/ssrf.ts';

export interface SsoNetwork {
  /** SSO_ALLOW_PRIVATE_NETWORKS=1 (tests only): a provider on loopback or a private network. */
  policy: NetworkPolicy;
  /** Certificates trusted besides the system's (SSO_CA_FILE; tests with a self-signed provider). */
  extraCa?: string[];
  timeoutMs?: number;
}

/** The provider could not be reached or read: a refused address, an error, a timeout. */
export class ProviderUnreachable extends Error {}

/** What went wrong, in words: openid-client wraps a failed fetch ("something went wrong") around its cause. */
export function failureReason(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && !(e instanceof ProviderUnreachable) && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

const MAX_BYTES = 1024 * 1024;

/** openid-client's fetch, through the network rules. */
export function guardedFetch(network: SsoNetwork): oidc.CustomFetch {
  return async (address, options) => {
    const url = new URL(address);
    let target: { address: string; family: number };
    try {
      target = await vetTarget(url, network.policy);
    } catch (err) {
      throw new ProviderUnreachable(
        err instanceof RefusedTarget ? `${url.host}: ${err.message}` : `${url.host} could not be resolved`,
      );
    }
    const lookup: LookupFunction = (_name, o, cb) =>
      o?.all
        ? (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [target])
        : cb(null, target.address, target.family);
    const body = options.body === undefined || options.body === null ? undefined : String(options.body);
    return new Promise<Response>((resolve, reject) => {
      const req = https.request(url, {
        method: options.method,
        headers: options.headers,
        lookup,
        agent: false,
        ...(network.extraCa ? { ca: [...tls.rootCertificates, ...network.extraCa] } : {}),
        timeout: network.timeoutMs ?? 10_000,
        signal: options.signal,
      });
      req.on('socket', (socket) =>
        socket.once('connect', () => {
          const reason = refusalReason(socket.remoteAddress ?? '', network.policy);
          if (reason) req.destroy(new ProviderUnreachable(`refused: ${reason}`));
        }),
      );
      req.on('timeout', () => req.destroy(new ProviderUnreachable(`${url.host} did not answer in time`)));
      req.on('error', (err) =>
        reject(err instanceof ProviderUnreachable ? err : new ProviderUnreachable(`${url.host}: ${err.message}`)),
      );
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BYTES) req.destroy(new ProviderUnreachable(`${url.host} answered more than 1 MiB`));
          else chunks.push(c);
        });
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, one);
          const status = res.statusCode ?? 502;
          const empty = status === 204 || status === 304;
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
        });
      });
      req.end(body);
    });
  };
}

export interface ProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * Reads the provider's discovery document. The ID token's signature is checked against the
 * provider's keys (enableNonRepudiationChecks), besides its issuer, audience, expiry and nonce,
 * which openid-client always checks.
 */
export async function discoverProvider(settings: ProviderSettings, network: SsoNetwork): Promise<oidc.Configuration> {
  const config = await oidc.discovery(
    new URL(settings.issuer),
    settings.clientId,
    undefined,
    oidc.ClientSecretBasic(settings.clientSecret),
    { [oidc.customFetch]: guardedFetch(network), execute: [oidc.enableNonRepudiationChecks] },
  );
  return config;
}

/** Discovery documents kept for a few minutes per workspace and version of its settings. */
export class ProviderConfigurations {
  private readonly kept = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();
  constructor(
    readonly network: SsoNetwork,
    private readonly keepMs = 5 * 60_000,
  ) {}

  get(key: string, settings: ProviderSettings): Promise<oidc.Configuration> {
    const now = Date.now();
    const found = this.kept.get(key);
    if (found && now - found.at < this.keepMs) return found.config;
    const config = discoverProvider(settings, this.network);
    this.kept.set(key, { at: now, config });
    // A failure is not kept: the next sign-in asks again.
    config.catch(() => this.kept.delete(key));
    if (this.kept.size > 1000) this.kept.delete(this.kept.keys().next().value!);
    return config;
  }
}
