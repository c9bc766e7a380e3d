// Builds and runs one Shortlink process: API, docs, short links and background work.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import type { Config } from '../config';
import { migrateLatest, openDatabase, type Database } from '../db/knex';
import { createApp } from '../http/app';
import { createRateLimiter } from '../http/rate-limit';
import type { Services } from '../http/services';
import { RedirectCache, type LinkCacheInvalidator } from '../redirect/cache';
import { loadOrCreateCertificate, type TlsMaterial } from './tls';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  close(): Promise<void>;
}

export interface ServerOptions {
  db?: Database;
  log?: Logger;
  tls?: TlsMaterial;
  linkCache?: LinkCacheInvalidator;
  host?: string;
}

export async function startServer(config: Config, opts: ServerOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? pino({ level: config.logLevel, base: { service: 'shortlink' } });
  const db = opts.db ?? openDatabase(config.databaseUrl);
  await migrateLatest(db);
  const services: Services = {
    config,
    db,
    log,
    limiter: createRateLimiter(db),
    linkCache: opts.linkCache ?? new RedirectCache(),
  };
  const app = await createApp(services);
  const server = config.tls
    ? https.createServer(opts.tls ?? (await loadOrCreateCertificate(config)), app)
    : http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${config.tls ? 'https' : 'http'}://localhost:${port}`;
  log.info({ url, engine: db.engine }, 'shortlink listening');
  return {
    url,
    port,
    services,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (!opts.db) await db.knex.destroy();
    },
  };
}
