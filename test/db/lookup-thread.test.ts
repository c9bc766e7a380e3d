// SQLite's cache misses are read on the link lookup thread (src/db/lookup-thread.ts). What a
// visitor depends on: each answer is its own link's, a change is seen by the next lookup, and a
// thread that fails or stops fails its lookups (the visitor gets the 503 page) instead of leaving
// them waiting, and is replaced. The redirects themselves are tested through HTTPS in
// test/redirect/redirects.test.ts, where every SQLite miss goes through this thread.
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteFilename } from '../../src/db/knex';
import { LinkLookupThread, LookupThreadError } from '../../src/db/lookup-thread';
import { createTestDatabase, type MigratedDatabase, openMigratedDatabase } from '../support/databases';
import { seedWorkspace } from '../support/seed';
import { linkRow } from '../support/stored-rows';

// LINK_COLUMNS order (src/db/redirect-store.ts).
const SLUG = 3;
const URL_COLUMN = 4;
const LINKS = 300;

const within = <T>(ms: number, p: Promise<T>) =>
  Promise.race([p, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), ms))]);

describe('the link lookup thread (SQLite)', () => {
  let db: MigratedDatabase;
  let file: string;
  let thread: LinkLookupThread;

  beforeAll(async () => {
    db = await openMigratedDatabase('sqlite');
    file = sqliteFilename(db.url);
    const { workspaceId, userId } = await seedWorkspace(db.knex);
    await db.knex('links').insert(
      Array.from({ length: LINKS }, (_, i) =>
        linkRow({
          id: `lnk_lookup${i}`,
          workspace_id: workspaceId,
          created_by: userId,
          slug: `l-${i}`,
          original_url: `https://example.com/${i}`,
        }),
      ),
    );
    thread = new LinkLookupThread({ entry: './lookup-worker', data: { filename: file } });
  });
  afterAll(async () => {
    await thread?.close();
    await db?.close();
  });

  it('answers every lookup of a turn with its own row, in one message to the thread', async () => {
    const before = thread.batches;
    const asked = Array.from({ length: 400 }, (_, i) => (i % 4 === 3 ? `missing-${i}` : `l-${(i * 7) % LINKS}`));
    const rows = await Promise.all(asked.map((slug) => thread.find('', slug)));
    expect(thread.batches - before).toBe(1);
    rows.forEach((row, i) => {
      if (asked[i].startsWith('missing-')) expect(row).toBeNull();
      else {
        expect(row![SLUG]).toBe(asked[i]);
        expect(row![URL_COLUMN]).toBe(`https://example.com/${asked[i].slice(2)}`);
      }
    });
    // Another domain's address is another link (none here).
    expect(await thread.find('dom_other', 'l-1')).toBeNull();
  });

  it('sees a change committed before the lookup was asked for', async () => {
    expect((await thread.find('', 'l-5'))![URL_COLUMN]).toBe('https://example.com/5');
    const other = new Sqlite(file);
    try {
      other.prepare('UPDATE links SET original_url = ? WHERE slug = ?').run('https://example.com/changed', 'l-5');
      expect((await thread.find('', 'l-5'))![URL_COLUMN]).toBe('https://example.com/changed');
      other.prepare('UPDATE links SET deleted_at = ? WHERE slug = ?').run(Date.now(), 'l-5');
      expect(await thread.find('', 'l-5')).toBeNull();
    } finally {
      other.close();
    }
  });

  it('a thread that stops fails the lookups it had not answered, and the next lookups start a new one', async () => {
    const inFlight = thread.find('', 'l-9');
    // The batch leaves in the turn's check phase, before this callback.
    await new Promise((resolve) => setImmediate(resolve));
    await thread.crashForTest();
    // Answered just before the thread went, or failed: never left waiting.
    const settled = await within(
      5_000,
      inFlight.then(
        (row) => row![SLUG],
        (err) => (err instanceof LookupThreadError ? 'failed' : err),
      ),
    );
    expect(['l-9', 'failed']).toContain(settled);
    expect(((await within(10_000, thread.find('', 'l-10'))) as unknown[])[SLUG]).toBe('l-10');
  });

  it('a thread that cannot read fails its lookups with the reason', async () => {
    const empty = await createTestDatabase('sqlite');
    const bare = new Sqlite(sqliteFilename(empty.url));
    bare.exec('CREATE TABLE t (x)');
    bare.close();
    const broken = new LinkLookupThread({ entry: './lookup-worker', data: { filename: sqliteFilename(empty.url) } });
    try {
      const outcome = await within(
        10_000,
        broken.find('', 'l-1').then(
          () => 'answered',
          (err: Error) => err,
        ),
      );
      expect(outcome).toBeInstanceOf(LookupThreadError);
      expect((outcome as Error).message).toMatch(/links/);
    } finally {
      await broken.close();
      await empty.drop();
    }
  });

  it('reads a lone miss with the inline reader when no batch is in flight, and batches on the thread otherwise', async () => {
    const inlined: string[] = [];
    const reader = new Sqlite(file, { readonly: true });
    const bySlug = reader
      .prepare('SELECT id, workspace_id, domain_key, slug, original_url FROM links WHERE domain_key = ? AND slug = ?')
      .raw(true);
    const adaptive = new LinkLookupThread({ entry: './lookup-worker', data: { filename: file } }, (domainKey, slug) => {
      inlined.push(slug);
      return (bySlug.get(domainKey, slug) as unknown[] | undefined) ?? null;
    });
    try {
      // Alone: inline, no message to the thread.
      expect((await adaptive.find('', 'l-20'))![SLUG]).toBe('l-20');
      expect(inlined).toEqual(['l-20']);
      expect(adaptive.batches).toBe(0);
      // Two in one turn: one batch on the thread.
      const two = await Promise.all([adaptive.find('', 'l-21'), adaptive.find('', 'l-22')]);
      expect(two.map((r) => r![SLUG])).toEqual(['l-21', 'l-22']);
      expect(adaptive.batches).toBe(1);
      // Alone, but the thread is busy with a batch (a big one, so it is still being read): queued
      // behind it, not read inline.
      const busy = Promise.all(Array.from({ length: 100_000 }, (_, i) => adaptive.find('', `l-${i % LINKS}`)));
      await new Promise((resolve) => setImmediate(resolve));
      const lone = adaptive.find('', 'l-25');
      expect((await lone)![SLUG]).toBe('l-25');
      await busy;
      expect(adaptive.batches).toBe(3);
      expect(inlined).toEqual(['l-20']);
      // An inline read that fails fails its lookup.
      const failing = new LinkLookupThread({ entry: './lookup-worker', data: { filename: file } }, () => {
        throw new Error('disk I/O error');
      });
      await expect(failing.find('', 'l-1')).rejects.toThrow('disk I/O error');
      await failing.close();
    } finally {
      await adaptive.close();
      reader.close();
    }
  });

  it('refuses lookups once closed', async () => {
    const closing = new LinkLookupThread({ entry: './lookup-worker', data: { filename: file } });
    expect((await closing.find('', 'l-2'))![SLUG]).toBe('l-2');
    // Asked for in the turn it closes, before the batch left: refused, not left waiting.
    // (Its outcome is taken at once: it settles while close() is awaited.)
    const unsent = closing.find('', 'l-3').then(
      () => 'answered',
      (err: unknown) => err,
    );
    await closing.close();
    expect(await within(5_000, unsent)).toBeInstanceOf(LookupThreadError);
    await expect(closing.find('', 'l-2')).rejects.toBeInstanceOf(LookupThreadError);
  });
});
