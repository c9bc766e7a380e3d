// A raw HTTPS client for the fuzzer (keep-alive, many requests in flight, full control over
// headers and body bytes) and key pools that stay under the 60-requests-a-minute limit per key.
import https from 'node:https';
import type { Knex } from 'knex';
import type { Scope } from '../../src/domain/access';
import { createKey } from '../../src/db/repos/api-keys';
import type { ResponseLike } from './fuzz-openapi';
import { readResponse } from './server';

export interface RawRequest {
  method: string;
  /** Path and query, already encoded as they go on the wire. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
  /** Open a fresh connection and close it afterwards (requests that may break a connection). */
  fresh?: boolean;
}

export interface RawResponse extends ResponseLike {
  /** A transport failure (reset, timeout) instead of an HTTP answer. */
  transportError?: string;
  ms: number;
}

export class FuzzClient {
  private readonly agent: https.Agent;
  constructor(
    private readonly base: string,
    private readonly ca: string,
    maxSockets = 16,
    private readonly timeoutMs = 20_000,
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets, ca, keepAliveMsecs: 1000 });
  }

  send(r: RawRequest): Promise<RawResponse> {
    const url = new URL(r.path, this.base);
    const headers: Record<string, string | string[]> = { ...r.headers };
    if (r.body !== undefined && !r.chunked) headers['content-length'] = String(Buffer.byteLength(r.body));
    if (r.chunked) headers['transfer-encoding'] = 'chunked';
    const started = Date.now();
    return new Promise((resolve) => {
      let settled = false;
      const done = (res: Omit<RawResponse, 'ms'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...res, ms: Date.now() - started });
      };
      let req: ReturnType<typeof https.request>;
      try {
        req = https.request(
          {
            protocol: url.protocol,
            hostname: url.hostname,
            port: url.port,
            // The path goes on the wire exactly as given (URL would normalise it).
            path: r.path,
            method: r.method,
            headers,
            ca: this.ca,
            agent: r.fresh ? false : this.agent,
            servername: url.hostname,
          },
          (res) => {
            res.on('error', (err) =>
              done({ status: 0, headers: {}, text: '', body: undefined, transportError: String(err) }),
            );
            readResponse(res, done);
          },
        );
      } catch (err) {
        // The client itself refused the request (an invalid header value): nothing was sent.
        done({
          status: -1,
          headers: {},
          text: '',
          body: undefined,
          transportError: `client refused: ${(err as Error).message}`,
        });
        return;
      }
      req.setTimeout(this.timeoutMs, () => {
        req.destroy(new Error(`timeout after ${this.timeoutMs} ms`));
      });
      req.on('error', (err) =>
        done({ status: 0, headers: {}, text: '', body: undefined, transportError: String(err) }),
      );
      if (r.body !== undefined) {
        if (r.chunked) {
          const buf = Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body);
          for (let i = 0; i < buf.length; i += 16_384) req.write(buf.subarray(i, i + 16_384));
        } else req.write(r.body);
      }
      req.end();
    });
  }

  close() {
    this.agent.destroy();
  }
}

/**
 * Keys of one workspace member with fixed scopes, each used for at most `budget` requests (the
 * limit is 60 a minute per key, so a fresh key is minted before one could be refused).
 */
export class KeyPool {
  private current: { key: string; id: string } | null = null;
  private uses = 0;
  private minting: Promise<void> | null = null;
  minted = 0;
  readonly keyIds: string[] = [];

  constructor(
    private readonly knex: () => Knex,
    readonly workspaceId: string,
    readonly userId: string,
    readonly scopes: Scope[],
    private readonly budget = 50,
    private readonly expiresAt: () => number | null = () => null,
    private readonly after?: (keyId: string) => Promise<void>,
  ) {}

  async take(): Promise<string> {
    for (;;) {
      if (this.current && this.uses < this.budget) {
        this.uses++;
        return this.current.key;
      }
      this.minting ??= (async () => {
        const k = await createKey(this.knex(), this.workspaceId, this.userId, this.scopes, this.expiresAt());
        if (this.after) await this.after(k.id);
        this.minted++;
        this.keyIds.push(k.id);
        this.current = k;
        this.uses = 0;
      })().finally(() => {
        this.minting = null;
      });
      await this.minting;
    }
  }
}
