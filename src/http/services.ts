import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { ReadYourWrites } from '../db/read-replicas.ts';
import type { DestinationFetchPolicy } from '../operations/destination-preview.ts';
import type { Favicons } from '../operations/favicons.ts';
import type { OperationServices } from '../operations/services.ts';
import type { ProviderConfigurations } from '../operations/sso-client.ts';
import type { KeyUses } from './key-uses.ts';
import type { Metrics } from './metrics.ts';
import type { WellKnownFiles } from './well-known.ts';

/** Everything a request handler may use, built once per process (or per test): the operations' and more. */
export interface Services extends OperationServices {
  limiter: RateLimiterAbstract;
  /** Changes noted as they are answered, so that the heavy reads after them see them (src/db/read-replicas.ts). */
  reads: ReadYourWrites;
  /** Wrong dashboard sign-in passwords, per email and client (src/db/attempt-limiter.ts). */
  signInThrottle: RateLimiterAbstract;
  /** "Forgot password" requests, per email and client (src/operations/password-reset.ts). */
  resetThrottle: RateLimiterAbstract;
  /** API keys' last use, noted in memory and written at most once a minute per key (src/http/key-uses.ts). */
  keyUses: KeyUses;
  /** DNS TXT lookups for domain verification (node:dns by default; tests answer their own). */
  resolveTxt: (name: string) => Promise<string[][]>;
  /** Certificates webhook deliveries trust besides the system's (tests; WEBHOOK_CA_FILE): test events use them too. */
  webhookCa?: string[];
  /** DESTINATION_FETCH and the guarded fetch of every destination read (operations/destination-preview.ts). */
  destinationFetch: DestinationFetchPolicy;
  /** Destinations' site icons, fetched through destinationFetch and kept for the process (operations/favicons.ts). */
  favicons: Favicons;
  /** Single sign-on providers' discovery documents, read through the network rules (operations/sso-client.ts). */
  ssoProviders: ProviderConfigurations;
  /** GET /metrics (src/http/metrics.ts). */
  metrics: Metrics;
  /** The app deep-link documents of /.well-known/ per host, forgotten on a change (src/http/well-known.ts). */
  wellKnown: WellKnownFiles;
  /** Clicks recorded and not yet written (GET /readyz fails above READY_MAX_CLICK_BACKLOG). */
  clickBacklog(): number;
}
