// Builds and runs one Shortlink process: API, docs, short links and background work.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { resolveTxt } from 'node:dns/promises';
import pino, { type Logger } from 'pino';
import type { Config } from '../config.ts';
import { migrateLatest, openDatabase, type Database } from '../db/knex.ts';
import { openQueryService, type QueryService } from '../db/query-threads.ts';
import { PRIMARY_ONLY, ReadReplicas } from '../db/read-replicas.ts';
import { createApp } from '../http/app.ts';
import { createRateLimiter } from '../http/rate-limit.ts';
import { loadDefinition } from '../http/definition.ts';
import { fixedPathsOf } from '../http/routing.ts';
import type { Services } from '../http/services.ts';
import type { LinkCacheInvalidator } from '../redirect/cache.ts';
import { ChangeFeed } from '../redirect/changes.ts';
import { ClickRecorder } from '../clicks/buffer.ts';
import { InlineClickWriter, ThreadClickWriter, type ClickWorkerInit, type ClickWriter } from '../clicks/writer.ts';
import { clickSinks } from '../webhooks/click-events.ts';
import { RedirectService } from '../redirect/handler.ts';
import { ClickIds } from '../domain/forwarding.ts';
import { indexableSlugs, settleSplit } from '../db/repos/link-routing.ts';
import { CsrfTokens, createPasswordThrottle } from '../redirect/password.ts';
import { createSignInThrottle } from '../http/dashboard/session.ts';
import { openRedirectStore, type RedirectStore } from '../db/redirect-store.ts';
import { scheduleRetention } from '../jobs/retention.ts';
import { scheduleClickFold } from '../jobs/click-folds.ts';
import { scheduleEventPartitions } from '../jobs/event-partitions.ts';
import { WebhookWorker } from '../webhooks/worker.ts';
import { createMetrics } from '../http/metrics.ts';
import { WellKnownFiles } from '../http/well-known.ts';
import { APP_LINKS_CHANGED } from '../db/repos/link-changes.ts';
import { loadOrCreateMasterKey } from './master-key.ts';
import { loadOrCreateCertificate, type TlsMaterial } from './tls.ts';
import { youngGenerationAdvice } from './node-flags.ts';
import { geoLocator, mmdbMetadata } from '../platform/geo.ts';
import { destinationFetchPolicy } from '../operations/destination-preview.ts';
import { Favicons } from '../operations/favicons.ts';
import { ProviderConfigurations } from '../operations/sso-client.ts';
import { createResetThrottle } from '../operations/password-reset.ts';
import { KeyUses } from '../http/key-uses.ts';
import { MailWorker, smtpTransport } from '../jobs/mail.ts';
import { openSecret } from '../webhooks/secrets.ts';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  redirects: RedirectService;
  /** The redirect path's database reads (on SQLite with its link lookup thread). */
  store: RedirectStore;
  clicks: ClickRecorder;
  changes: ChangeFeed;
  /** The webhook delivery worker of this process. */
  webhooks: WebhookWorker;
  /** The mail worker of this process (null without SMTP_URL). */
  mail: MailWorker | null;
  /** The queries that grow with the data (on SQLite, run on query threads). */
  queryService: QueryService;
  /** DATABASE_READ_URL's replicas and where the heavy reads went (null without replicas). */
  replicas: ReadReplicas | null;
  close(): Promise<void>;
}

export interface ServerOptions {
  db?: Database;
  log?: Logger;
  tls?: TlsMaterial;
  /** Replaces the redirect cache as the API's invalidation target (tests of the 207 path). */
  linkCache?: LinkCacheInvalidator;
  host?: string;
  /** Certificates webhook deliveries trust besides the system's (tests; WEBHOOK_CA_FILE in `serve`). */
  webhookCa?: string[];
  /** DNS TXT lookups for domain verification (tests answer their own; node:dns otherwise). */
  resolveTxt?: (name: string) => Promise<string[][]>;
}

/**
 * A year, as deploy/nginx/shortlink.conf sends it. No includeSubDomains: the owner of a custom
 * domain decides for its other hosts.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/** The service's click writer: a thread of its own, unless the database cannot be opened twice. */
function clickWriterFor(
  databaseUrl: string,
  db: Database,
  webhookEvents: ClickWorkerInit['webhookEvents'],
  geoipDb: string | undefined,
): ClickWriter {
  const inMemory = databaseUrl === 'sqlite:' || databaseUrl === 'sqlite::memory:';
  if (inMemory)
    return new InlineClickWriter(
      db.knex,
      db.engine,
      webhookEvents ? clickSinks(webhookEvents) : [],
      geoLocator({ geoipDb }),
    );
  return new ThreadClickWriter({ databaseUrl, webhookEvents, geoipDb });
}

export async function startServer(config: Config, opts: ServerOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? pino({ level: config.logLevel, base: { service: 'shortlink' } });
  // A GEOIP_DB that cannot be read fails the start, not the first click's flush.
  if (config.geoipDb) mmdbMetadata(config.geoipDb);
  const db = opts.db ?? openDatabase(config.databaseUrl);
  await migrateLatest(db);
  const masterKey = loadOrCreateMasterKey(config);
  const store = openRedirectStore(config.databaseUrl, log);
  // Clicks are written on a thread of their own; link.clicked / qr.scanned and the traffic
  // alerts go into the outbox in the same transactions as the clicks.
  const clickWriter = clickWriterFor(
    config.databaseUrl,
    db,
    {
      shortDomain: config.shortDomain,
      settleMs: Math.max(2 * config.clickFlushMs, 1000),
    },
    config.geoipDb,
  );
  const clicks = new ClickRecorder(clickWriter, log, config.clickFlushMs);
  // The writer thread loads while the app is built; it is up before the first click can
  // arrive, so every flush interval is written.
  const writerReady = clickWriter.ready();
  const redirects = new RedirectService({
    config,
    store,
    clicks,
    csrf: new CsrfTokens(masterKey),
    passwordThrottle: createPasswordThrottle(db),
    log,
    residentLinks: config.redirectCacheLinks,
    fixedPaths: fixedPathsOf(loadDefinition()),
    // Loaded on this thread only when a link's rules read a place (domain/routing.ts readsPlace).
    geo: geoLocator({ geoipDb: config.geoipDb }),
    clickIds: new ClickIds(masterKey),
    settleSplit: (link) => settleSplit(db.knex, link),
    indexableSlugs: (domainKey, limit) => indexableSlugs(db.knex, domainKey, limit),
  });
  const wellKnown = new WellKnownFiles(db.knex, config.shortDomain);
  // The feed hands an app-links change on as a link change whose slug is APP_LINKS_CHANGED; it
  // concerns only the /.well-known/ documents. A domain's change may start or stop a host
  // serving its documents, so it reaches them too.
  const changes = new ChangeFeed(
    db.knex,
    {
      linkChanged: (domainKey, slug) =>
        slug === APP_LINKS_CHANGED ? wellKnown.forget() : redirects.linkChanged(domainKey, slug),
      domainChanged: () => {
        redirects.domainChanged();
        wellKnown.forget();
      },
      pageChanged: (handle) => redirects.pageChanged(handle),
    },
    log,
  );
  // Made here, started once the service listens; /metrics reads its counts.
  const webhooks = new WebhookWorker({
    knex: db.knex,
    engine: db.engine,
    log,
    masterKey,
    retryScale: config.webhookRetryScale,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    extraCa: opts.webhookCa,
  });
  const queryService = openQueryService(db, config.databaseUrl);
  // With replicas, the heavy reads go to one that has what the reader must see (src/db/read-replicas.ts).
  const replicas = config.databaseReadUrls.length
    ? new ReadReplicas(db.knex, queryService.queries, config.databaseReadUrls, config.databaseReadMaxLagMs, log)
    : null;
  await replicas?.start();
  const queries = replicas?.route() ?? queryService.queries;
  // The dashboard's reads of destinations trust what webhook deliveries trust (WEBHOOK_CA_FILE).
  const destinationFetch = destinationFetchPolicy(config, opts.webhookCa);
  const services: Services = {
    config,
    db,
    queries,
    reads: replicas ?? PRIMARY_ONLY,
    log,
    limiter: createRateLimiter(db),
    linkCache: opts.linkCache ?? redirects,
    masterKey,
    geo: geoLocator({ geoipDb: config.geoipDb }),
    signInThrottle: createSignInThrottle(db),
    resetThrottle: createResetThrottle(db),
    keyUses: new KeyUses(db.knex, log),
    resolveTxt: opts.resolveTxt ?? resolveTxt,
    webhookCa: opts.webhookCa,
    destinationFetch,
    favicons: new Favicons(destinationFetch.fetch),
    // A provider a workspace's owner names is fetched under the deliveries' network rules.
    ssoProviders: new ProviderConfigurations({
      policy: { allowPrivateNetworks: config.ssoAllowPrivateNetworks },
      extraCa: config.ssoCaFile ? [fs.readFileSync(config.ssoCaFile, 'utf8')] : undefined,
    }),
    metrics: createMetrics({ redirects, clicks, webhooks, db, replicas }),
    wellKnown,
    clickBacklog: () => clicks.backlog,
  };
  // With SMTP_URL, each process sends the outbox's mail; a row is claimed by one at a time.
  const mail = config.smtpUrl
    ? new MailWorker({
        knex: db.knex,
        engine: db.engine,
        log,
        transport: smtpTransport(config.smtpUrl),
        from: config.mailFrom,
        open: (sealed) => openSecret(masterKey, sealed),
      })
    : null;
  const app = await createApp(services);
  const dispatch = (req: http.IncomingMessage, res: http.ServerResponse) => redirects.handle(req, res, app);
  // Serving TLS itself, the service tells browsers to use only HTTPS from now on, on every answer
  // (short links, pages, API, dashboard, docs). Behind a TLS proxy (TLS=off) the proxy says it.
  const handler = config.tls
    ? (req: http.IncomingMessage, res: http.ServerResponse) => {
        res.setHeader('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
        dispatch(req, res);
      }
    : dispatch;
  const server = config.tls
    ? https.createServer(opts.tls ?? (await loadOrCreateCertificate(config)), handler)
    : http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  // Node's documentation: headersTimeout must exceed keepAliveTimeout, or the connection checker
  // may close a kept-alive connection as a client (a browser, a proxy's pool) sends on it.
  server.headersTimeout = 66_000;
  await writerReady;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, opts.host ?? config.host, () => resolve());
  });
  clicks.start();
  changes.start();
  webhooks.start();
  mail?.start();
  // Off the event loop's critical path: visits are served while it runs (RedirectService.preload).
  if (config.redirectCachePreload) void redirects.preload();
  const advice = youngGenerationAdvice(process.execArgv, config.redirectCachePreload);
  if (advice) log.warn(advice);
  const stopRetention = scheduleRetention(queryService.queries, log, undefined, config.auditRetentionDays);
  const stopClickFold = scheduleClickFold(queryService.queries, log);
  // SQLite keeps its tables unpartitioned.
  const stopEventPartitions =
    db.engine === 'postgres' ? scheduleEventPartitions(queryService.queries, log) : () => undefined;
  const port = (server.address() as AddressInfo).port;
  const url = `${config.tls ? 'https' : 'http'}://localhost:${port}`;
  log.info({ url, engine: db.engine }, 'shortlink listening');
  return {
    url,
    port,
    services,
    redirects,
    store,
    clicks,
    changes,
    webhooks,
    mail,
    queryService,
    replicas,
    async close() {
      changes.stop();
      redirects.stop();
      stopRetention();
      stopClickFold();
      stopEventPartitions();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
      // A clean shutdown writes every buffered click first: waiting for webhook attempts below can
      // take up to a variant's timeout, and a process killed meanwhile would lose the clicks. The
      // events of this last flush (link.clicked, ...) are in the outbox for any process to send.
      await clicks.stop().catch((err) => log.error({ err }, 'final click flush failed'));
      // Attempts already sent are waited for (none is left to end as UNKNOWN); the rest go back to PENDING.
      await webhooks.stop().catch((err) => log.error({ err }, 'stopping webhook deliveries failed'));
      await mail?.stop().catch((err) => log.error({ err }, 'stopping the mail worker failed'));
      await services.keyUses.stop();
      await store.close();
      await queryService.close();
      await replicas?.close();
      if (!opts.db) await db.knex.destroy();
    },
  };
}
