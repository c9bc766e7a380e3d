// Click writing on its own thread: every buffered click reaches the database exactly once, in
// transactions of WRITE_CHUNK clicks; when a transaction fails, what was committed before it is
// not written again and what was not is kept for the next flush.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteFilename, WAL_CHECKPOINT_INTERVAL_MS } from '../../src/db/knex';
import { HANDOFF_PART, ThreadClickWriter, WRITE_CHUNK, WRITER_NICE_INCREMENT } from '../../src/clicks/writer';
import { ClickRecorder, type ClickEvent } from '../../src/clicks/buffer';
import { writeClickBatch, type StoredClick } from '../../src/db/repos/click-batches';
import { type MigratedDatabase, openMigratedDatabase, testEngines } from '../support/databases';
import { IPHONE_STORED, IPHONE_USER_AGENT } from '../support/user-agents';

const click = (linkId: string, at: number): ClickEvent => ({
  linkId,
  workspaceId: 'ws_writer',
  qrCodeId: null,
  at,
  referer: 'https://news.example/item?id=1',
  country: 'de',
  userAgent: IPHONE_USER_AGENT,
  address: undefined,
  route: null,
});

// COPY's text format gives tab, newline, CR and backslash meanings, and reads \\N as NULL.
const ODD_TEXT = ['tab\there', 'back\\slash', '\\N', 'line\nbreak\rreturn', 'ünïcödé 😀', '', ' spaced '];

describe.each(testEngines())('click writer thread on %s', (engine) => {
  let db: MigratedDatabase;
  let recorder: ClickRecorder;
  const count = async (linkId: string) =>
    Number((await db.knex('clicks').where({ link_id: linkId }).count({ n: '*' }))[0].n);

  beforeAll(async () => {
    db = await openMigratedDatabase(engine);
    // ws_writer wants traffic alerts, so its clicks are also counted in windows; ws_quiet does not.
    const now = Date.now();
    await db.knex('workspaces').insert([
      { id: 'ws_writer', name: 'Writer', plan: 'business', created_at: now },
      { id: 'ws_quiet', name: 'Quiet', plan: 'business', created_at: now },
    ]);
    await db.knex('webhook_subscriptions').insert({
      id: 'whk_writer',
      workspace_id: 'ws_writer',
      variant: 'A',
      url: 'https://hooks.example.com/a',
      events: JSON.stringify(['analytics.spike']),
      secret_encrypted: 'sealed',
      enabled: false,
      created_at: now,
      updated_at: now,
    });
    recorder = new ClickRecorder(
      new ThreadClickWriter({ databaseUrl: db.url, webhookEvents: null }),
      pino({ level: 'silent' }),
      60_000,
    );
  });
  afterAll(async () => {
    await recorder?.stop();
    await db?.close();
  });

  it('writes parsed clicks and the daily count from the other thread', async () => {
    const at = Date.UTC(2026, 10, 22, 9);
    for (let i = 0; i < 3; i++) recorder.record(click('lnk_parsed', at + i));
    expect(recorder.pending).toBe(3);
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    const rows = await db.knex('clicks').where({ link_id: 'lnk_parsed' }).orderBy('occurred_at');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({
      workspace_id: 'ws_writer',
      referrer_host: 'news.example',
      country: 'DE',
      ...IPHONE_STORED,
    });
    expect(Number(rows[0].occurred_at)).toBe(at);
    const daily = await db.knex('link_daily_clicks').where({ link_id: 'lnk_parsed' });
    expect(daily.map((d) => Number(d.clicks))).toEqual([3]);
    // And the traffic alerts' count of the 5-minute window, per country.
    const windows = await db.knex('link_click_windows').where({ link_id: 'lnk_parsed' });
    expect(windows.map((w) => ({ ...w, window_start: Number(w.window_start), clicks: Number(w.clicks) }))).toEqual([
      { window_start: at, link_id: 'lnk_parsed', country: 'DE', workspace_id: 'ws_writer', clicks: 3 },
    ]);
  });

  /**
   * One click a millisecond from `at` per ODD_TEXT string, every text field holding it (the device
   * cut to `deviceChars`, its column's width); `ids(i)` names the link (or page) and QR code.
   */
  const oddClicks = (
    at: number,
    deviceChars: number,
    ids: (i: number) => Pick<StoredClick, 'link_id' | 'qr_code_id'>,
  ): StoredClick[] =>
    ODD_TEXT.map((s, i) => ({
      workspace_id: 'ws_quiet',
      ...ids(i),
      occurred_at: at + i,
      referrer_host: s,
      country: i % 2 ? null : 'DE',
      city: i % 3 ? s : null,
      route: i % 2 ? s : null,
      device: s.slice(0, deviceChars),
      browser: s,
      os: i % 3 ? null : s,
    }));

  it('stores every field as given, whatever characters it holds (Postgres takes the raw clicks as COPY text)', async () => {
    const at = Date.UTC(2026, 10, 23, 9);
    const rows = oddClicks(at, 32, (i) => ({ link_id: `lnk_odd_${i}`, qr_code_id: i % 2 ? null : `qr_${i}` }));
    await writeClickBatch(db.knex, engine, rows, []);
    const stored = await db.knex('clicks').where('link_id', 'like', 'lnk_odd_%').orderBy('occurred_at');
    expect(stored.map((r) => ({ ...r, id: undefined, occurred_at: Number(r.occurred_at) }))).toEqual(
      rows.map((r) => ({ ...r, id: undefined })),
    );
    expect((await db.knex('link_daily_clicks').where('link_id', 'like', 'lnk_odd_%')).length).toBe(ODD_TEXT.length);
  });

  it("stores a bio page's views with every field as given, whatever characters it holds (COPY text on Postgres too)", async () => {
    // A page view travels as a click whose link id is the page's (pg_…) and whose QR code is null.
    const at = Date.UTC(2026, 10, 23, 10);
    const rows = oddClicks(at, 16, () => ({ link_id: 'pg_odd', qr_code_id: null }));
    await writeClickBatch(db.knex, engine, rows, []);
    const stored = await db.knex('page_views').where('page_id', 'pg_odd').orderBy('occurred_at');
    expect(stored.map((r) => ({ ...r, id: undefined, occurred_at: Number(r.occurred_at) }))).toEqual(
      // A page view has no route: routing rules are a link's.
      rows.map(({ link_id, qr_code_id, route, ...r }) => ({ ...r, page_id: link_id, id: undefined })),
    );
    expect((await db.knex('page_daily_views').where('page_id', 'pg_odd')).map((d) => Number(d.views))).toEqual([
      ODD_TEXT.length,
    ]);
    // None of them is a click of a link.
    expect(await count('pg_odd')).toBe(0);
  });

  it('counts clicks of unknown country in their window under the empty country, and adds to a window across flushes', async () => {
    const at = Date.UTC(2026, 10, 22, 9, 5);
    recorder.record({ ...click('lnk_windows', at), country: undefined });
    recorder.record(click('lnk_windows', at + 299_999));
    recorder.record(click('lnk_windows', at + 300_000));
    await recorder.flush();
    recorder.record({ ...click('lnk_windows', at + 1), country: 'xx1' });
    await recorder.flush();
    const windows = await db
      .knex('link_click_windows')
      .where({ link_id: 'lnk_windows' })
      .orderBy(['window_start', 'country']);
    expect(windows.map((w) => [Number(w.window_start) - at, w.country, Number(w.clicks)])).toEqual([
      [0, '', 2],
      [0, 'DE', 1],
      [300_000, 'DE', 1],
    ]);
  });

  it('counts no windows for a workspace without a subscription naming a traffic alert, but its clicks and daily counts', async () => {
    const at = Date.UTC(2026, 10, 22, 9, 10);
    for (let i = 0; i < 4; i++) recorder.record({ ...click('lnk_quiet', at + i), workspaceId: 'ws_quiet' });
    recorder.record(click('lnk_loud', at));
    await recorder.flush();
    expect(await count('lnk_quiet')).toBe(4);
    expect((await db.knex('link_daily_clicks').where({ link_id: 'lnk_quiet' })).map((d) => Number(d.clicks))).toEqual([
      4,
    ]);
    expect(await db.knex('link_click_windows').where({ link_id: 'lnk_quiet' })).toEqual([]);
    // In the same flush, the workspace that wants alerts still gets its window.
    expect((await db.knex('link_click_windows').where({ link_id: 'lnk_loud' })).map((w) => Number(w.clicks))).toEqual([
      1,
    ]);
  });

  it('hands a batch larger than one part over in parts and writes every click once, in order', async () => {
    const at = Date.UTC(2026, 10, 22, 8);
    const n = 2 * HANDOFF_PART + 7;
    for (let i = 0; i < n; i++)
      recorder.record({
        ...click(i % 2 ? 'lnk_part_odd' : 'lnk_part_even', at + i),
        country: i === n - 1 ? 'nl' : 'de',
      });
    // Clicks recorded while the parts are on their way belong to the next flush.
    const flushed = recorder.flush();
    recorder.record(click('lnk_part_late', at + n));
    await flushed;
    expect(recorder.pending).toBe(1);
    expect(await count('lnk_part_even')).toBe(Math.ceil(n / 2));
    expect(await count('lnk_part_odd')).toBe(Math.floor(n / 2));
    expect(await count('lnk_part_late')).toBe(0);
    const times = (
      await db.knex('clicks').whereIn('link_id', ['lnk_part_even', 'lnk_part_odd']).orderBy('id').pluck('occurred_at')
    ).map(Number);
    expect(times).toEqual(Array.from({ length: n }, (_, i) => at + i));
    const last = await db
      .knex('clicks')
      .where({ occurred_at: at + n - 1 })
      .first();
    expect(last.country).toBe('NL');
    await recorder.flush();
    expect(await count('lnk_part_late')).toBe(1);
  });

  it('keeps only the uncommitted part of a batch whose later transaction fails, and writes it on the next flush', async () => {
    // A trigger refuses clicks of one link until it is dropped: the batch's first transaction
    // (WRITE_CHUNK clicks of a good link) commits, the second (holding the refused click) fails.
    if (engine === 'sqlite') {
      await db.knex.raw(`CREATE TRIGGER refuse_click BEFORE INSERT ON clicks WHEN NEW.link_id = 'lnk_refused'
                         BEGIN SELECT RAISE(ABORT, 'click refused by test trigger'); END`);
    } else {
      await db.knex.raw(`CREATE FUNCTION refuse_click() RETURNS trigger AS $$ BEGIN
                           IF NEW.link_id = 'lnk_refused' THEN RAISE EXCEPTION 'click refused by test trigger'; END IF;
                           RETURN NEW; END $$ LANGUAGE plpgsql`);
      await db.knex.raw(
        'CREATE TRIGGER refuse_click BEFORE INSERT ON clicks FOR EACH ROW EXECUTE FUNCTION refuse_click()',
      );
    }
    const at = Date.UTC(2026, 10, 22, 10);
    for (let i = 0; i < WRITE_CHUNK; i++) recorder.record(click('lnk_first', at + i));
    recorder.record(click('lnk_second', at + WRITE_CHUNK));
    recorder.record(click('lnk_refused', at + WRITE_CHUNK + 1));
    await expect(recorder.flush()).rejects.toThrow(/click refused by test trigger/);
    expect(await count('lnk_first')).toBe(WRITE_CHUNK);
    expect(await count('lnk_second')).toBe(0);
    expect(recorder.pending).toBe(2);

    await db.knex.raw(engine === 'sqlite' ? 'DROP TRIGGER refuse_click' : 'DROP TRIGGER refuse_click ON clicks');
    await recorder.flush();
    expect(recorder.pending).toBe(0);
    expect(await count('lnk_first')).toBe(WRITE_CHUNK);
    expect(await count('lnk_second')).toBe(1);
    expect(await count('lnk_refused')).toBe(1);
    const daily = await db.knex('link_daily_clicks').where({ link_id: 'lnk_first' });
    expect(daily.map((d) => Number(d.clicks))).toEqual([WRITE_CHUNK]);
  });

  it('starts a new thread when the old one is gone and loses nothing handed to it', async () => {
    const writer = new ThreadClickWriter({ databaseUrl: db.url, webhookEvents: null });
    const other = new ClickRecorder(writer, pino({ level: 'silent' }), 60_000);
    const at = Date.UTC(2026, 10, 22, 11);
    other.record(click('lnk_restart', at));
    await other.flush();
    // The thread exits (as after a crash); the next flush must bring up another one.
    await writer.close();
    other.record(click('lnk_restart', at + 1));
    await other.stop();
    expect(await count('lnk_restart')).toBe(2);
  });

  // SQLite only: Postgres checkpoints by itself.
  if (engine === 'sqlite') {
    it('leaves WAL checkpoints to the writer thread: connections on the event loop never run one', async () => {
      expect(await db.knex.raw('PRAGMA wal_autocheckpoint')).toEqual([{ wal_autocheckpoint: 0 }]);
    });

    it("copies other connections' writes into the database file within seconds when no clicks arrive", async () => {
      const file = sqliteFilename(db.url);
      const rows = Array.from({ length: 200 }, (_, i) => ({
        kind: 'link',
        domain_key: '',
        slug: `wal-${i}`,
        created_at: i,
      }));
      await db.knex.batchInsert('link_changes', rows, 100);
      // The database file alone, as a backup that copies only it would see it.
      const inFileAlone = async () => {
        const copy = path.join(os.tmpdir(), `shortlink-wal-copy-${process.pid}.db`);
        fs.copyFileSync(file, copy);
        const { default: Sqlite } = await import('better-sqlite3');
        const alone = new Sqlite(copy, { readonly: true });
        try {
          return (
            alone.prepare("SELECT count(*) AS n FROM link_changes WHERE slug LIKE 'wal-%'").get() as { n: number }
          ).n;
        } catch {
          return -1; // copied halfway through a checkpoint: try again
        } finally {
          alone.close();
          fs.rmSync(copy, { force: true });
        }
      };
      const deadline = Date.now() + 2 * WAL_CHECKPOINT_INTERVAL_MS + 2_000;
      let n = await inFileAlone();
      while (n !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        n = await inFileAlone();
      }
      expect(n).toBe(200);
    }, 20_000);
  }
});

// The writer thread yields the CPU to the threads that answer visitors (src/start/click-writer-thread.ts).
describe.runIf(process.platform === 'linux')('click writer thread priority', () => {
  /** Nice value of each thread of this process (field 19 of /proc/self/task/TID/stat). */
  const threadNices = () =>
    fs.readdirSync('/proc/self/task').map((tid) => {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });

  it(`runs ${WRITER_NICE_INCREMENT} nice levels below the process, and the calling thread keeps its priority`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-writer-nice-'));
    const mine = os.getPriority(0);
    const lowered = Math.min(19, mine + WRITER_NICE_INCREMENT);
    const before = threadNices();
    const writer = new ThreadClickWriter({ databaseUrl: `sqlite:${path.join(dir, 'nice.db')}`, webhookEvents: null });
    try {
      await writer.ready();
      const during = threadNices();
      expect(during.filter((n) => n === lowered).length).toBe(before.filter((n) => n === lowered).length + 1);
      // This thread, which would serve visitors in the service, keeps its priority.
      expect(os.getPriority(0)).toBe(mine);
    } finally {
      await writer.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(threadNices().filter((n) => n === lowered).length).toBe(before.filter((n) => n === lowered).length);
  });
});
