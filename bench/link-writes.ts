// Link writes benchmark: what creating and changing a link costs in process (the repositories the
// API's handlers call: insertLink, updateLink), on a database that already holds many links, so
// the search indexes' upkeep (SQLite's triggers, Postgres's GIN indexes) is measured at the size
// it has in use. It prints figures and asserts nothing.
//
//   npx tsx bench/link-writes.ts --database URL [--writes 300] [--rounds 3] [--workspace ID]
//
// --database is a seeded database, e.g. the one `bench/dashboard.ts --keep` leaves (a
// `sqlite:/tmp/.../bench.db` URL or a `postgres://...` one); it is migrated to the latest schema
// first. Per round, in one workspace (--workspace, else the one with the most links): --writes
// links created (slug, title and a destination of about 100 characters, one tag in three), then
// each of them retitled, then each renamed (a new slug), then each given a new destination, then
// each deleted (the API's soft delete); one write per transaction, as the API does. Then, as the floor, the same number of rows inserted
// into a table with no index and no trigger, one per transaction. The links it made are deleted
// at the end (with their tags and change-feed rows), so the database is left as it was.
import { parseArgs } from 'node:util';
import type { Knex } from 'knex';
import { engineOf, migrateLatest, openDatabase } from '../src/db/knex';
import { insertLink, softDeleteLink, updateLink, type LinkRow } from '../src/db/repos/links';
import { newId } from '../src/domain/ids';
import { fmtInt, fmtMs, intOption, log, percentile, printHeaderAndExit, table } from './util';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string' },
    writes: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
    workspace: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});
if (args.help || !args.database) printHeaderAndExit(import.meta.url);
const WRITES = intOption('writes', args.writes);
const ROUNDS = intOption('rounds', args.rounds);
const noEvents = async () => [];
/** Slugs of this run's links, so the change feed's rows for them can be told apart at the end. */
const PREFIX = `bench-lw-${process.pid}-`;

const WORDS = [
  'spring',
  'sale',
  'webinar',
  'launch',
  'guide',
  'summer',
  'shop',
  'gift',
  'card',
  'news',
  'report',
  'offer',
];
const word = (i: number, k: number) => WORDS[(i * 7 + k * 3) % WORDS.length];

function linkRow(workspaceId: string, userId: string, round: number, i: number, now: number): LinkRow {
  return {
    id: newId('lnk'),
    workspace_id: workspaceId,
    created_by: userId,
    domain_id: null,
    domain_key: '',
    slug: `${PREFIX}${round}-${i}-${word(i, 1)}`,
    original_url: `https://shop.example.com/collections/${word(i, 2)}-${word(i, 3)}/item-${i}?utm_source=newsletter&utm_medium=email&utm_campaign=${word(i, 4)}`,
    title: `${word(i, 5)} ${word(i, 6)} landing page ${i}`,
    status: 'ACTIVE',
    policy_locked: false,
    redirect_type: 'TEMPORARY',
    expires_at: null,
    expired_url: null,
    click_limit: null,
    start_at: null,
    end_at: null,
    password_hash: null,
    preview_title: null,
    preview_description: null,
    preview_image: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
}

async function timed(n: number, write: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await write(i);
    out.push((performance.now() - t) * 1000);
  }
  return out.sort((a, b) => a - b);
}

async function main() {
  const url = args.database!;
  const engine = engineOf(url);
  const db = openDatabase(url, { poolMax: 2 });
  const { knex } = db;
  const made: string[] = [];
  try {
    await migrateLatest(db);
    const busiest = async () =>
      (
        (await knex('links')
          .groupBy('workspace_id')
          .select('workspace_id')
          .count({ n: '*' })
          .orderBy('n', 'desc')
          .first()) as { workspace_id: string } | undefined
      )?.workspace_id;
    const workspaceId = args.workspace ?? (await busiest());
    if (!workspaceId) throw new Error('no links in this database: give it a seeded one (bench/dashboard.ts --keep)');
    const userId: string = (await knex('links').where('workspace_id', workspaceId).first('created_by')).created_by;
    const tagId: string | undefined = (await knex('tags').where('workspace_id', workspaceId).first('id'))?.id;
    const links = Number((await knex('links').where('workspace_id', workspaceId).count({ n: '*' }))[0].n);
    log(
      `link writes on ${engine}: ${fmtInt(links)} links in workspace ${workspaceId}; ${fmtInt(WRITES)} writes of each kind per round, ${ROUNDS} rounds`,
    );
    await knex.schema.dropTableIfExists('bench_link_writes_floor');
    await knex.schema.createTable('bench_link_writes_floor', (t) => {
      t.string('id');
      t.string('slug');
      t.text('title');
      t.text('original_url');
    });
    const rows: string[][] = [];
    const add = (what: string, us: number[]) => rows.push([what, fmtMs(percentile(us, 50)), fmtMs(percentile(us, 99))]);
    for (let round = 1; round <= ROUNDS; round++) {
      const now = Date.now();
      const created: LinkRow[] = [];
      add(
        `round ${round}: create`,
        await timed(WRITES, async (i) => {
          const row = linkRow(workspaceId, userId, round, i, now);
          await insertLink(knex, row, tagId && i % 3 === 0 ? [tagId] : [], noEvents);
          made.push(row.id);
          created.push(row);
        }),
      );
      const current = async (id: string) => (await knex('links').where('id', id).first()) as LinkRow;
      // The current row is read outside the timing, as the handler reads it before the change.
      const change = async (label: string, patch: (row: LinkRow, i: number) => Partial<LinkRow>) => {
        const us: number[] = [];
        for (let i = 0; i < created.length; i++) {
          const row = await current(created[i].id);
          const t = performance.now();
          await updateLink(knex, row, { ...patch(row, i), updated_at: Date.now() }, undefined, noEvents);
          us.push((performance.now() - t) * 1000);
        }
        add(
          `round ${round}: ${label}`,
          us.sort((a, b) => a - b),
        );
      };
      await change('new title', (row, i) => ({ title: `${row.title} (${word(i, 8)})` }));
      await change('new slug', (row) => ({ slug: `${row.slug}-x` }));
      await change('new destination', (row, i) => ({ original_url: `${row.original_url}&v=${word(i, 9)}` }));
      add(
        `round ${round}: delete (soft)`,
        await timed(created.length, (i) => softDeleteLink(knex, workspaceId, created[i].id, noEvents)),
      );
      add(
        `round ${round}: floor (plain insert)`,
        await timed(WRITES, (i) =>
          knex.transaction((trx) =>
            trx('bench_link_writes_floor').insert({
              id: `f${round}-${i}`,
              slug: `${PREFIX}${round}-${i}`,
              title: 'a title',
              original_url: 'https://example.com/',
            }),
          ),
        ),
      );
    }
    log(table(['write', 'p50 µs', 'p99 µs'], rows));
  } finally {
    await cleanUp(knex, made);
    await knex.destroy();
  }
}

async function cleanUp(knex: Knex, ids: string[]) {
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    await knex.transaction(async (trx) => {
      await trx('link_tags').whereIn('link_id', part).delete();
      await trx('links').whereIn('id', part).delete();
    });
  }
  await knex('link_changes').where('slug', 'like', `${PREFIX}%`).delete();
  await knex.schema.dropTableIfExists('bench_link_writes_floor');
}

await main();
