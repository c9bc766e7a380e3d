// Configuration is environment variables only (docs/configuration.md), each with a working default.
import path from 'node:path';

export interface Config {
  databaseUrl: string;
  /**
   * DATABASE_READ_URL: Postgres streaming replicas (comma-separated) that take the heavy reads
   * (src/db/read-replicas.ts); empty without replicas.
   */
  databaseReadUrls: string[];
  /** DATABASE_READ_MAX_LAG_MS: a replica further behind the primary than this takes no reads. */
  databaseReadMaxLagMs: number;
  dataDir: string;
  logLevel: string;
  port: number;
  publicUrl: string;
  shortDomain: string;
  assetBaseUrl: string;
  /**
   * Where a visit to a short domain's root (`/`) goes (ROOT_REDIRECT): an absolute http(s) URL the
   * operator chose, or null for a 404. The dashboard's own host sends its root to the dashboard.
   */
  rootRedirect: string | null;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  tls: boolean;
  /**
   * TRUST_PROXY: how many proxies in front of the service are trusted (0: none). `1` (or `on`)
   * trusts one: its X-Forwarded-Proto, and the right-most X-Forwarded-For entry as the client.
   */
  trustProxy: number;
  /** HOST: the address to listen on (default every address). */
  host: string;
  /** METRICS_TOKEN: /metrics answers a request bearing it; unset, loopback clients only. */
  metricsToken?: string;
  /** TLS_ASK_TOKEN: GET /tls/ask answers a request whose `token` is it; unset, loopback clients only. */
  tlsAskToken?: string;
  featureConversions: boolean;
  featureGoals: boolean;
  webhookVariants: Set<'A' | 'B'>;
  webhookRetryScale: number;
  webhookTimeoutMs?: number;
  webhookAllowPrivateNetworks: boolean;
  /**
   * SSO_ALLOW_PRIVATE_NETWORKS=1 (tests only): single sign-on providers may be on loopback or
   * private addresses, which the issuer fetch otherwise refuses (webhooks/ssrf.ts).
   */
  ssoAllowPrivateNetworks: boolean;
  /** SSO_CA_FILE: a PEM certificate the single sign-on fetches trust besides the system's (tests). */
  ssoCaFile?: string;
  clickFlushMs: number;
  masterKey?: string;
  /** REDIRECT_CACHE_LINKS: how many links each process's redirect cache holds (default 1,000,000). */
  redirectCacheLinks: number;
  /**
   * REDIRECT_CACHE_PRELOAD: load the live links into the redirect cache's resident tier at start
   * (default on: on Postgres, visits to 1,000,000 links at random 36-44% of a bare server against
   * 21-31% without; with node's --min-semi-space-size=16 (src/start/node-flags.ts) a warm set
   * is as fast either way; bench/README.md).
   */
  redirectCachePreload: boolean;
  /**
   * DESTINATION_FETCH: the dashboard may fetch a destination's page for its title and preview
   * (operations/destination-preview.ts). Off unless the operator turns it on.
   */
  destinationFetch: boolean;
  /** AUDIT_RETENTION_DAYS: how long audit log entries are kept (default 400 days; src/db/repos/audit.ts). */
  auditRetentionDays: number;
  /** FIRST_RUN_REMINDER_SECONDS: how often `serve` prints the first-run link again until it is used. */
  firstRunReminderSeconds: number;
  /**
   * GEOIP_DB: a MaxMind database file (GeoLite2/GeoIP2 Country or City, .mmdb) that locates
   * visitors instead of the packaged IP-location data (src/platform/geo.ts).
   */
  geoipDb?: string;
  /**
   * SMTP_URL: the mail server (`smtp://user:pass@host:587`, `smtps://...`); unset, the service
   * sends no mail and the dashboard shows links instead. Holds a password: never logged.
   */
  smtpUrl?: string;
  /** MAIL_FROM: the sender of the service's mail (default `Shortlink <shortlink@{host of PUBLIC_URL}>`). */
  mailFrom: string;
}

const on = (v: string | undefined, dflt: boolean) =>
  v === undefined || v === '' ? dflt : !['0', 'off', 'false', 'no'].includes(v.toLowerCase());

function positiveInteger(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined || v.trim() === '') return dflt;
  const n = Number(v.trim().replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number, got ${v}`);
  return n;
}

function trustedHops(v: string | undefined): number {
  if (v === undefined || v.trim() === '') return 0;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  if (on(v, false)) return 1;
  return 0;
}

/**
 * `value` as a normalised absolute http(s) URL (null stays null); anything else stops the start.
 * The rule of domain/links.ts normalizeDestination, written here because config imports nothing.
 */
function absoluteHttpUrl(value: string | null, name: string): string | null {
  if (value === null) return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {}
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new Error(`${name} must be an absolute http or https URL, got ${value}`);
  return url.href;
}

/**
 * DATABASE_READ_URL's replicas. Only Postgres has them, and an entry is never echoed in the
 * message: it holds a password.
 */
function readReplicaUrls(v: string | undefined, databaseUrl: string): string[] {
  const urls = (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!urls.length) return [];
  if (!/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new Error(
      'DATABASE_READ_URL needs a postgres:// DATABASE_URL: read replicas are Postgres streaming replicas',
    );
  urls.forEach((url, i) => {
    if (!/^postgres(ql)?:\/\/./.test(url))
      throw new Error(`DATABASE_READ_URL: entry ${i + 1} of ${urls.length} is not a postgres:// URL`);
  });
  return urls;
}

/** SMTP_URL, checked at start; the message never echoes it (it holds a password). */
function smtpUrl(v: string | undefined): string | undefined {
  const value = v?.trim();
  if (!value) return undefined;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {}
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname)
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL with a host (smtp://user:pass@host:587)');
  return value;
}

/**
 * The replicas' lag is known to the poll (one a second, src/db/read-replicas.ts), so a bound
 * under a second would read as a second.
 */
const MIN_READ_MAX_LAG_MS = 1_000;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const port = Number(env.PORT || 8443);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const publicUrl = (env.PUBLIC_URL || `https://localhost:${port}`).replace(/\/+$/, '');
  let publicHost: string;
  try {
    publicHost = new URL(publicUrl).host;
  } catch {
    throw new Error(`PUBLIC_URL must be an absolute URL, got ${publicUrl}`);
  }
  const variants = new Set(
    (env.WEBHOOK_VARIANTS ?? 'A,B')
      .split(',')
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean),
  );
  for (const v of variants) if (v !== 'A' && v !== 'B') throw new Error(`WEBHOOK_VARIANTS: unknown variant ${v}`);
  const rootRedirect = absoluteHttpUrl(env.ROOT_REDIRECT?.trim() || null, 'ROOT_REDIRECT');
  const databaseUrl = env.DATABASE_URL || `sqlite:${path.join(dataDir, 'shortlink.db')}`;
  const databaseReadMaxLagMs = positiveInteger('DATABASE_READ_MAX_LAG_MS', env.DATABASE_READ_MAX_LAG_MS, 5_000);
  if (databaseReadMaxLagMs < MIN_READ_MAX_LAG_MS)
    throw new Error(`DATABASE_READ_MAX_LAG_MS must be at least ${MIN_READ_MAX_LAG_MS}, got ${databaseReadMaxLagMs}`);
  return {
    databaseUrl,
    databaseReadUrls: readReplicaUrls(env.DATABASE_READ_URL, databaseUrl),
    databaseReadMaxLagMs,
    dataDir,
    logLevel: env.LOG_LEVEL || 'info',
    port,
    publicUrl,
    shortDomain: (env.SHORT_DOMAIN || publicHost).toLowerCase(),
    assetBaseUrl: (env.ASSET_BASE_URL || `${publicUrl}/assets/`).replace(/\/?$/, '/'),
    rootRedirect,
    tlsCertFile: env.TLS_CERT_FILE || undefined,
    tlsKeyFile: env.TLS_KEY_FILE || undefined,
    tls: on(env.TLS, true),
    trustProxy: trustedHops(env.TRUST_PROXY),
    featureConversions: on(env.FEATURE_CONVERSIONS, true),
    featureGoals: on(env.FEATURE_GOALS, true),
    webhookVariants: variants as Set<'A' | 'B'>,
    webhookRetryScale: Number(env.WEBHOOK_RETRY_SCALE || 1),
    webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS ? Number(env.WEBHOOK_TIMEOUT_MS) : undefined,
    webhookAllowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === '1',
    ssoAllowPrivateNetworks: env.SSO_ALLOW_PRIVATE_NETWORKS === '1',
    ssoCaFile: env.SSO_CA_FILE || undefined,
    clickFlushMs: Number(env.CLICK_FLUSH_MS || 1000),
    masterKey: env.MASTER_KEY || undefined,
    metricsToken: env.METRICS_TOKEN || undefined,
    tlsAskToken: env.TLS_ASK_TOKEN || undefined,
    host: env.HOST || '0.0.0.0',
    redirectCacheLinks: positiveInteger('REDIRECT_CACHE_LINKS', env.REDIRECT_CACHE_LINKS, 1_000_000),
    redirectCachePreload: on(env.REDIRECT_CACHE_PRELOAD, true),
    destinationFetch: on(env.DESTINATION_FETCH, false),
    auditRetentionDays: positiveInteger('AUDIT_RETENTION_DAYS', env.AUDIT_RETENTION_DAYS, 400),
    firstRunReminderSeconds: positiveInteger('FIRST_RUN_REMINDER_SECONDS', env.FIRST_RUN_REMINDER_SECONDS, 60),
    geoipDb: env.GEOIP_DB ? path.resolve(env.GEOIP_DB) : undefined,
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM?.trim() || `Shortlink <shortlink@${new URL(publicUrl).hostname}>`,
  };
}
