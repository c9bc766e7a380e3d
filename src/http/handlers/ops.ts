import { timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { ping } from '../../db/knex.ts';
import { isServedCustomDomain } from '../../db/repos/domains.ts';
import type { Services } from '../services.ts';
import { forbidden, notFound, unauthenticated, unavailable } from '../../domain/errors.ts';
import type { Handlers, ResultOf } from './types.ts';

/**
 * Clicks recorded and not yet written above which the process is not ready: the database has not
 * taken the click writer's flushes for a while (a second's clicks are written each second under
 * load), and the buffer drops the oldest clicks at 1,000,000 (src/clicks/buffer.ts).
 */
export const READY_MAX_CLICK_BACKLOG = 200_000;

function isLoopback(address: string): boolean {
  try {
    const parsed = ipaddr.process(address);
    return parsed.range() === 'loopback';
  } catch {
    return false;
  }
}

const sameSecret = (a: string, b: string) =>
  Buffer.byteLength(a) === Buffer.byteLength(b) && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function opsHandlers(
  services: Services,
): Pick<
  Handlers,
  | 'getHealth'
  | 'getRoot'
  | 'followShortLink'
  | 'submitLinkPassword'
  | 'scanQrCode'
  | 'getReadiness'
  | 'getMetrics'
  | 'askCertificate'
> {
  const { config } = services;
  const dashboardHost = new URL(config.publicUrl).host.toLowerCase();
  // A TLS server name carries no port: the names as a front end asks for them.
  const nameOf = (host: string) => new URL(`https://${host}`).hostname;
  const ownNames = new Map([
    [nameOf(dashboardHost), 'dashboard' as const],
    [nameOf(config.shortDomain), 'short' as const],
  ]);
  return {
    // No link has an empty slug, so the redirect path hands `/` here. One host serving both the
    // dashboard and short links (the default) sends its root to the dashboard unless the
    // operator set ROOT_REDIRECT (openapi/paths/root.yaml).
    async getRoot({ headers }): Promise<ResultOf<'getRoot'>> {
      const host = String(headers.host ?? '').toLowerCase();
      const toDashboard = host === dashboardHost && (config.rootRedirect === null || host !== config.shortDomain);
      if (!toDashboard && config.rootRedirect === null) throw notFound('Nothing is at the root of a short domain');
      return {
        status: 302,
        body: undefined,
        headers: { Location: toDashboard ? '/app/' : config.rootRedirect!, 'Cache-Control': 'no-store' },
      };
    },
    async getHealth(): Promise<ResultOf<'getHealth'>> {
      return { status: 200, body: { status: 'ok' } };
    },
    // The short-link paths are answered by src/redirect before Express; what reaches the API
    // app is a reserved name or a host that is not a short domain.
    async followShortLink(): Promise<ResultOf<'followShortLink'>> {
      throw notFound('No short link here');
    },
    async submitLinkPassword(): Promise<ResultOf<'submitLinkPassword'>> {
      throw notFound('No short link here');
    },
    async scanQrCode(): Promise<ResultOf<'scanQrCode'>> {
      throw notFound('No QR code here');
    },
    async getReadiness(): Promise<ResultOf<'getReadiness'>> {
      try {
        await ping(services.db);
      } catch {
        // No `code`: the contract keeps codes for features switched off, where retrying does
        // not help; an unreachable database is worth retrying.
        throw unavailable('The database is not reachable');
      }
      const backlog = services.clickBacklog();
      if (backlog > READY_MAX_CLICK_BACKLOG) {
        throw unavailable(
          `${backlog} clicks are waiting to be written (more than ${READY_MAX_CLICK_BACKLOG}): the database is not keeping up`,
        );
      }
      return { status: 200, body: { status: 'ready' } };
    },
    async askCertificate({ query }, { client }): Promise<ResultOf<'askCertificate'>> {
      const token = config.tlsAskToken;
      if (token) {
        if (!sameSecret(String(query.token ?? ''), token))
          throw unauthenticated('GET /tls/ask needs token=TLS_ASK_TOKEN');
      } else if (!isLoopback(client)) {
        throw forbidden('GET /tls/ask answers loopback clients only (set TLS_ASK_TOKEN to ask from elsewhere)');
      }
      const domain = String(query.domain).toLowerCase().replace(/\.$/, '');
      const own = ownNames.get(domain);
      if (own) return { status: 200, body: { domain, kind: own } };
      // A TLS server name is ASCII letters, digits, dots and hyphens (IDNs as punycode): nothing
      // else can be a domain, and it is answered without asking the database.
      if (/^[a-z0-9.-]+$/.test(domain) && (await isServedCustomDomain(services.db.knex, domain)))
        return { status: 200, body: { domain, kind: 'custom' } };
      throw notFound(`${domain} is not a domain this service answers for`);
    },
    async getMetrics({ headers }, { client }): Promise<ResultOf<'getMetrics'>> {
      const token = services.config.metricsToken;
      if (token) {
        const given = String(headers.authorization ?? '');
        if (!sameSecret(given, `Bearer ${token}`))
          throw unauthenticated('GET /metrics needs Authorization: Bearer with the METRICS_TOKEN');
      } else if (!isLoopback(client)) {
        throw forbidden('GET /metrics answers loopback clients only (set METRICS_TOKEN to read it from elsewhere)');
      }
      return {
        status: 200,
        body: await services.metrics.render(),
        headers: { 'Content-Type': services.metrics.contentType, 'Cache-Control': 'no-store' },
      };
    },
  };
}
