// What every suite of the Prism contract test (test/contract/prism.test.ts) works with.
import type { Knex } from 'knex';
import type { Engine } from '../../../src/db/knex';
import type { Scope } from '../../../src/domain/access';
import type { Call, ContractCoverage, ContractTarget } from '../../support/prism';
import type { Seeded } from '../../support/seed';
import type { RequestOptions, TestResponse } from '../../support/server';

export type { Call } from '../../support/prism';

export { API_SCOPES } from '../../support/seed';

/** The host the test servers take as their short domain: the Host Prism's forwarder sends. */
export const SHORT_HOST = '127.0.0.1';
export const PERSON =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
export const CRAWLER = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
export const BIG = 'x'.repeat(70_000); // > 64 KiB once in a JSON body

/**
 * Made by prism.test.ts: `engine` and `coverage` are there when the suites are registered, the
 * rest is filled in by its beforeAll (read it inside hooks and tests only). Every check takes the
 * key to send as its last argument: `owner.key` when omitted, none for null.
 */
export interface ContractContext {
  engine: Engine;
  /** The HTTPS server (short domain 127.0.0.1) and its proxy. */
  main: ContractTarget;
  coverage: ContractCoverage;
  /** A Growth workspace; its key (every API scope) is new for each test: its own 60-a-minute budget. */
  owner: Seeded;
  knex(): Knex;
  viaPrism(op: string, call: Call, status: number, key?: string | null): Promise<TestResponse>;
  refusedByPrism(
    op: string,
    call: Call,
    prismStatus: number,
    status: number | null,
    key?: string | null,
  ): Promise<{ proxied: TestResponse; direct: TestResponse }>;
  directly(op: string, call: Call, status: number, key?: string | null): Promise<TestResponse>;
  /** A new key of the owner (or of `who`) with these scopes. */
  freshKey(scopes?: Scope[], who?: { workspaceId: string; userId: string }): Promise<string>;
  /** Creates a link straight on the server (not a contract check). */
  makeLink(body?: object, key?: string): Promise<any>;
  /** While true, the API's redirect-cache step fails: updateLink and deleteLink answer 207. */
  cacheFails: boolean;
}

export const call = (method: string, path: string, opts?: RequestOptions): Call => ({ method, path, opts });
export const json = (method: string, path: string, body: unknown): Call => ({ method, path, opts: { body } });
export const textPlain = (method: string, path: string, rawBody: string): Call => ({
  method,
  path,
  opts: { rawBody, headers: { 'content-type': 'text/plain' } },
});

/** The main server's METRICS_TOKEN (GET /metrics answers a request bearing it). */
export const METRICS_TOKEN = 'contract-metrics-token';
/** The main server's TLS_ASK_TOKEN (GET /tls/ask answers a request whose `token` is it). */
export const TLS_ASK_TOKEN = 'contract-tls-ask-token';
