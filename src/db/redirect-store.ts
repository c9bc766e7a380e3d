// Database access of the redirect hot path. It bypasses Knex on purpose: a visit costs one
// statement (prepared once on SQLite and synchronous; one round trip on Postgres) and no query
// building, which is what keeps a cache miss close to a cache hit. The rows it reads:
// redirect-rows.ts.
//
// On Postgres its statements are named unless DATABASE_URL says `pgbouncer=true` (pg-names.ts).
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { type StatementName, statementNames } from './pg-names.ts';
import type { ResolvedLink } from '../domain/resolve.ts';
import { engineOf, retryWhileSqliteBusy, sqliteFilename } from './knex.ts';
import { LinkLookupThread, type ScannedPage } from './lookup-thread.ts';
import { LINK_COLUMNS, SQLITE_LINK_BY_ADDRESS, toResolvedRow } from './redirect-rows.ts';

export interface QrTarget {
  id: string;
  linkId: string;
}

/** A published, enabled bio page as the address it was asked for may show it. */
export interface LivePage {
  id: string;
  workspaceId: string;
  handle: string;
  /** The published content (JSON of src/domain/bio-pages.ts PageContent). */
  published: string;
}

type MaybePromise<T> = T | Promise<T>;

/** Answers come synchronously (SQLite) or as promises (Postgres); a failure is always a rejected promise. */
export interface RedirectStore {
  findLink(domainKey: string, slug: string): MaybePromise<ResolvedLink | null>;
  findLinkById(id: string): MaybePromise<ResolvedLink | null>;
  findDomainByHost(host: string): MaybePromise<string | null>;
  findQr(code: string): MaybePromise<QrTarget | null>;
  /**
   * The page at /@{handle} on the domain of `domainKey` ('' for the short domain, else an active
   * custom domain, which shows only its own workspace's pages); null when there is none, it is
   * unpublished or disabled.
   */
  findPage(handle: string, domainKey: string): MaybePromise<LivePage | null>;
  /**
   * Up to `limit` live links with ids after `after` ('' for the first), in id order, read and
   * encoded off the event loop (encodeLinkPage: the cache's preload); absent where there is no
   * lookup thread (an in-memory database).
   */
  scanLinks?(after: string, limit: number): Promise<ScannedPage>;
  /** Takes one of the link's clickLimit slots; false when none is left (exact across processes). */
  reserveClick(linkId: string): MaybePromise<boolean>;
  /**
   * Makes the next read see every change committed so far. The redirect cache calls it whenever
   * it drops entries for a change (SQLite reads on the event loop share a snapshot within one
   * event-loop turn; the lookup thread starts one per batch, so it needs no call).
   */
  refresh(): void;
  close(): Promise<void>;
}

/** A live page by handle (bio pages are read once per page and cached: no covering index needed). */
const PAGE_BY_HANDLE = (
  p: (n: number) => string,
) => `SELECT p.id, p.workspace_id, p.handle, p.published FROM bio_pages p
  WHERE p.handle = ${p(1)} AND p.deleted_at IS NULL AND p.status = 'ACTIVE' AND p.published IS NOT NULL
    AND (${p(2)} = '' OR EXISTS (SELECT 1 FROM domains d WHERE d.id = ${p(2)} AND d.workspace_id = p.workspace_id AND d.status = 'ACTIVE'))`;

const toLivePage = (
  r: { id: string; workspace_id: string; handle: string; published: string } | undefined,
): LivePage | null => (r ? { id: r.id, workspaceId: r.workspace_id, handle: r.handle, published: r.published } : null);

/**
 * A synchronous read's answer, or its failure as a rejected promise: callers handle a failed
 * read in one place (the promise path) whichever engine answers.
 */
function settled<T>(read: () => T): T | Promise<T> {
  try {
    return read();
  } catch (err) {
    return Promise.reject(err);
  }
}

class SqliteStore implements RedirectStore {
  private readonly db: Sqlite.Database;
  // Reservations write, so they wait for SQLite's one write lock, which the click writer thread
  // holds for a transaction at a time. As for every write on this thread
  // (src/db/knex.ts), this connection gives up at once (busy_timeout 0) and the wait happens on
  // a timer, not in SQLite's busy handler, which would block every visitor. Reads never wait in
  // WAL mode.
  private readonly writer: Sqlite.Database;
  private readonly byAddress: Sqlite.Statement;
  /** Where findLink reads, but for a lone miss (src/db/lookup-thread.ts); the other lookups are rare and cached. */
  readonly lookups: LinkLookupThread | undefined;
  private readonly byId: Sqlite.Statement;
  private readonly domain: Sqlite.Statement;
  private readonly qr: Sqlite.Statement;
  // Prepared at first use: a store opened on a database migrated later still serves links.
  private page: Sqlite.Statement | undefined;
  private readonly reserve: Sqlite.Statement;
  private readonly begin: Sqlite.Statement;
  private readonly commit: Sqlite.Statement;
  // The lookups read on this connection (QR scans, custom domains, a lone miss while the lookup
  // thread has no batch in flight, and every miss of an in-memory database; other misses go to
  // the lookup thread, which batches them per turn): one read transaction serves every lookup of
  // an event-loop turn: each transaction of its own takes and releases WAL read locks (fcntl
  // calls) and checks the file. The snapshot ends after the turn (setImmediate), and at once on
  // refresh(), which every cache invalidation calls, so a change is seen from the next read after
  // its invalidation.
  private snapshotOpen = false;
  private endScheduled = false;
  private readonly endSnapshotSoon = () => {
    this.endScheduled = false;
    this.refresh();
  };

  constructor(filename: string) {
    this.db = new Sqlite(filename);
    this.db.pragma('journal_mode = WAL');
    // Misses by address (nearly every miss) are read on the lookup thread; an in-memory database
    // cannot be opened from another thread, so it is read here.
    this.lookups =
      filename === ':memory:' || filename === ''
        ? undefined
        : new LinkLookupThread({ entry: './lookup-worker', data: { filename } }, (domainKey, slug) =>
            this.readInline(domainKey, slug),
          );
    const lookups = this.lookups;
    if (lookups) this.scanLinks = (after, limit) => lookups.scan(after, limit);
    this.db.pragma('busy_timeout = 5000');
    // Not memory-mapped (mmap_size): every commit of the click writer thread changes the WAL,
    // and a connection that sees the WAL changed at the start of a read transaction drops its
    // page cache and unmaps the whole file; each page is then faulted in again (slower than
    // reading it, bench/README.md).
    this.byAddress = this.db.prepare(SQLITE_LINK_BY_ADDRESS).raw(true);
    this.byId = this.db.prepare(`SELECT ${LINK_COLUMNS} FROM links WHERE id = ? AND deleted_at IS NULL`).raw(true);
    this.domain = this.db.prepare(`SELECT id FROM domains WHERE host = ? AND status = 'ACTIVE'`);
    this.qr = this.db.prepare('SELECT id, link_id FROM qr_codes WHERE code = ? AND deleted_at IS NULL');
    this.begin = this.db.prepare('BEGIN');
    this.commit = this.db.prepare('COMMIT');
    this.writer = new Sqlite(filename);
    this.writer.pragma('busy_timeout = 0');
    // Checkpoints run on the click writer thread, never in a visitor's reservation (src/db/knex.ts).
    this.writer.pragma('wal_autocheckpoint = 0');
    this.reserve = this.writer.prepare(
      'UPDATE links SET served = served + 1 WHERE id = ? AND deleted_at IS NULL AND (click_limit IS NULL OR served < click_limit)',
    );
  }
  /** Begins the turn's read transaction unless it is open; throws if it cannot. */
  private openSnapshot(): void {
    if (this.snapshotOpen) return;
    this.begin.run();
    this.snapshotOpen = true;
    if (!this.endScheduled) {
      this.endScheduled = true;
      setImmediate(this.endSnapshotSoon);
    }
  }
  private read<T>(fn: () => T): T | Promise<T> {
    try {
      this.openSnapshot();
    } catch (err) {
      return Promise.reject(err);
    }
    return settled(fn);
  }
  refresh(): void {
    if (!this.snapshotOpen) return;
    this.snapshotOpen = false;
    // A read-only transaction's COMMIT releases its read lock and cannot fail for lack of locks;
    // if it ever fails the connection is left in autocommit by the rollback.
    try {
      this.commit.run();
    } catch {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    }
  }
  /** A lone miss on this connection, in the turn's snapshot (LinkLookupThread decides); throws if the read fails. */
  private readInline(domainKey: string, slug: string): unknown[] | null {
    this.openSnapshot();
    return (this.byAddress.get(domainKey, slug) as unknown[] | undefined) ?? null;
  }
  /**
   * On the lookup thread: a promise, so the event loop serves other visitors while the B-tree is
   * walked (src/db/lookup-thread.ts).
   */
  findLink(domainKey: string, slug: string) {
    if (this.lookups) return this.lookups.find(domainKey, slug).then((r) => toResolvedRow(r ?? undefined));
    return this.read(() => toResolvedRow(this.byAddress.get(domainKey, slug) as unknown[] | undefined));
  }
  /** On the lookup thread; none for an in-memory database, which has no such thread. */
  readonly scanLinks?: (after: string, limit: number) => Promise<ScannedPage>;
  findLinkById(id: string) {
    return this.read(() => toResolvedRow(this.byId.get(id) as unknown[] | undefined));
  }
  findDomainByHost(host: string) {
    return this.read(() => (this.domain.get(host) as { id: string } | undefined)?.id ?? null);
  }
  findQr(code: string) {
    return this.read(() => {
      const r = this.qr.get(code) as { id: string; link_id: string } | undefined;
      return r ? { id: r.id, linkId: r.link_id } : null;
    });
  }
  findPage(handle: string, domainKey: string) {
    return this.read(() => {
      this.page ??= this.db.prepare(PAGE_BY_HANDLE(() => '?'));
      return toLivePage(this.page.get(handle, domainKey, domainKey) as never);
    });
  }
  reserveClick(linkId: string): boolean | Promise<boolean> {
    const reserve = () => this.reserve.run(linkId).changes === 1;
    // Synchronous when the lock is free (the usual case); otherwise a promise that waits for it.
    try {
      return reserve();
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') return Promise.reject(err);
      return retryWhileSqliteBusy(async () => reserve());
    }
  }
  async close() {
    await this.lookups?.close();
    this.refresh();
    this.db.close();
    this.writer.close();
  }
}

class PostgresStore implements RedirectStore {
  private readonly pool: pg.Pool;
  private readonly name: StatementName;
  /** Where findLink reads, but for a lone miss (src/db/lookup-thread.ts). */
  readonly lookups: LinkLookupThread;
  constructor(url: string, log?: { warn(obj: object, msg: string): void }) {
    this.pool = new pg.Pool({ connectionString: url, max: 8 });
    this.name = statementNames(url);
    // An idle connection the server drops (restart, failover, an admin's kill) is reported
    // here; without a listener the error would end the process. The pool replaces it.
    this.pool.on('error', (err) => log?.warn({ err }, 'an idle redirect-store connection to Postgres was lost'));
    this.lookups = new LinkLookupThread(
      { entry: './pg-lookup-worker', data: { url, connections: PG_LOOKUP_CONNECTIONS } },
      (domainKey, slug) =>
        this.pool
          .query({
            name: this.name('sl_link_by_address'),
            text: PG_LINK_BY_ADDRESS,
            values: [domainKey, slug],
            rowMode: 'array',
          })
          .then((r) => (r.rows[0] as unknown[]) ?? null),
    );
  }
  private async one(name: string, text: string, values: unknown[]) {
    const res = await this.pool.query({ name: this.name(name), text, values });
    return res.rows[0];
  }
  private async link(name: string, text: string, values: unknown[]) {
    const res = await this.pool.query({ name: this.name(name), text, values, rowMode: 'array' });
    return toResolvedRow(res.rows[0]);
  }
  async findLink(domainKey: string, slug: string) {
    return toResolvedRow((await this.lookups.find(domainKey, slug)) ?? undefined);
  }
  scanLinks(after: string, limit: number) {
    return this.lookups.scan(after, limit);
  }
  async findLinkById(id: string) {
    return this.link('sl_link_by_id', `SELECT ${LINK_COLUMNS} FROM links WHERE id = $1 AND deleted_at IS NULL`, [id]);
  }
  async findDomainByHost(host: string) {
    return (
      (await this.one('sl_domain_by_host', `SELECT id FROM domains WHERE host = $1 AND status = 'ACTIVE'`, [host]))
        ?.id ?? null
    );
  }
  async findQr(code: string) {
    const r = await this.one('sl_qr', 'SELECT id, link_id FROM qr_codes WHERE code = $1 AND deleted_at IS NULL', [
      code,
    ]);
    return r ? { id: r.id, linkId: r.link_id } : null;
  }
  async findPage(handle: string, domainKey: string) {
    return toLivePage(
      await this.one(
        'sl_page_by_handle',
        PAGE_BY_HANDLE((n) => `$${n}`),
        [handle, domainKey],
      ),
    );
  }
  refresh(): void {
    // Every read is a statement of its own; nothing to end.
  }
  async reserveClick(linkId: string) {
    const res = await this.pool.query({
      name: this.name('sl_reserve'),
      text: 'UPDATE links SET served = served + 1 WHERE id = $1 AND deleted_at IS NULL AND (click_limit IS NULL OR served < click_limit)',
      values: [linkId],
    });
    return res.rowCount === 1;
  }
  async close() {
    await this.lookups.close();
    await this.pool.end();
  }
}

const PG_LINK_BY_ADDRESS = `SELECT ${LINK_COLUMNS} FROM links WHERE domain_key = $1 AND slug = $2 AND deleted_at IS NULL`;
/** The lookup thread's connections: a batch in flight each. */
const PG_LOOKUP_CONNECTIONS = 4;

export function openRedirectStore(databaseUrl: string, log?: { warn(obj: object, msg: string): void }): RedirectStore {
  if (engineOf(databaseUrl) === 'postgres') return new PostgresStore(databaseUrl, log);
  return new SqliteStore(sqliteFilename(databaseUrl));
}
