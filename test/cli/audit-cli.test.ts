// `shortlink audit list|verify`, run as an operator runs it (node bin/shortlink.mjs in a child
// process) on SQLite: the list's output contract and filter, the chain checked whole, after
// retention (from its anchor), and broken by an edited, a deleted and a reordered entry, each
// named with a non-zero exit. The entries are written as the operations write them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { deleteEntriesBefore } from '../../src/db/repos/audit';
import { addMember, createWorkspace } from '../../src/db/repos/workspaces';
import { actorAt, audit, auditAddressKey, CLI_ACTOR } from '../../src/operations/audit';
import { rehashChain } from '../support/audit';
import { expectFailure, expectJsonLine, runCli } from '../support/cli';
import { createTestDatabase, type TestDatabase } from '../support/databases';

describe('shortlink audit commands (sqlite)', () => {
  let database: TestDatabase;
  let db: Database;
  let dataDir: string;
  let env: Record<string, string>;
  let W: string;
  const knex = () => db.knex;
  const cli = (args: string[]) => runCli(args, env);
  const person = actorAt(
    { type: 'user', id: 'usr_a', userId: 'usr_a' },
    '203.0.113.9',
    auditAddressKey(Buffer.alloc(32, 7)),
  );

  /** A fresh workspace with `n` entries, one second apart from `start`. */
  async function chain(n: number, start = Date.now() - n * 1000): Promise<string> {
    const id = await createWorkspace(knex(), `Audited ${Math.random()}`, 'growth');
    for (let i = 0; i < n; i++) {
      await knex().transaction((trx) =>
        audit(trx, i % 2 ? CLI_ACTOR : person, id, {
          action: 'tag.created',
          objectType: 'tag',
          objectId: `tag_${i + 1}`,
          changes: { name: { to: `t${i + 1}` } },
        }),
      );
      await knex()('audit_entries')
        .where({ workspace_id: id, seq: i + 1 })
        .update({ at: start + i * 1000 });
    }
    await rehash(id);
    return id;
  }
  /** Hashes the chain again after the `at` rewrite above (the set-up's own, not a code path). */
  const rehash = (id: string) => rehashChain(knex(), id);

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    db = openDatabase(database.url, { poolMax: 2 });
    await migrateLatest(db);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-auditcli-'));
    env = { DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    W = await chain(3, Date.parse('2027-01-10T00:00:00Z'));
  });
  afterAll(async () => {
    await db?.knex.destroy();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('audit list prints every entry, oldest first, as { at, actor: { type, id }, action, objectType, objectId }', async () => {
    const args = ['audit', 'list', '--workspace', W];
    const { data } = expectJsonLine(args, await cli(args), ['data']);
    expect(data).toEqual([
      {
        at: '2027-01-10T00:00:00.000Z',
        actor: { type: 'user', id: 'usr_a' },
        action: 'tag.created',
        objectType: 'tag',
        objectId: 'tag_1',
      },
      {
        at: '2027-01-10T00:00:01.000Z',
        actor: { type: 'cli', id: null },
        action: 'tag.created',
        objectType: 'tag',
        objectId: 'tag_2',
      },
      {
        at: '2027-01-10T00:00:02.000Z',
        actor: { type: 'user', id: 'usr_a' },
        action: 'tag.created',
        objectType: 'tag',
        objectId: 'tag_3',
      },
    ]);
    const since = ['audit', 'list', '--workspace', W, '--since', '2027-01-10T00:00:01Z'];
    expect(expectJsonLine(since, await cli(since), ['data']).data.map((e: any) => e.objectId)).toEqual([
      'tag_2',
      'tag_3',
    ]);
  });

  it('records the operator commands that change members and keys, as the command line', async () => {
    const ws = await createWorkspace(db.knex, 'Operated', 'growth');
    const userId = await addMember(db.knex, ws, 'op@example.com', 'MEMBER');
    const made = expectJsonLine(
      ['key', 'create'],
      await cli(['key', 'create', '--workspace', ws, '--user', userId, '--scopes', 'links:read', '--name', 'ci']),
      ['id', 'key'],
    );
    for (const args of [
      ['key', 'revoke', '--id', made.id],
      ['member', 'set-role', '--workspace', ws, '--user', userId, '--role', 'ADMIN'],
      ['member', 'remove', '--workspace', ws, '--user', userId],
    ])
      expect((await cli(args)).code, args.join(' ')).toBe(0);
    const rows = await db.knex('audit_entries').where({ workspace_id: ws }).orderBy('seq');
    expect(rows.map((r: any) => [r.actor_type, r.action, r.object_id])).toEqual([
      ['cli', 'api_key.created', made.id],
      ['cli', 'api_key.revoked', made.id],
      ['cli', 'member.role_changed', userId],
      ['cli', 'member.removed', userId],
    ]);
    // The key itself is never stored.
    expect(rows.map((r: any) => r.changes).join()).not.toContain(made.key);
  });

  it('audit list refuses a bad --since (exit 2) and an unknown workspace (exit 1)', async () => {
    const bad = ['audit', 'list', '--workspace', W, '--since', 'yesterday'];
    const r = await cli(bad);
    expectFailure(bad, r, /--since must be an ISO 8601/);
    expect(r.code).toBe(2);
    const unknown = ['audit', 'list', '--workspace', 'ws_nope'];
    const u = await cli(unknown);
    expectFailure(unknown, u, /workspace ws_nope not found/);
    expect(u.code).toBe(1);
  });

  it('audit verify checks every chain, and still checks from the anchor after retention', async () => {
    const args = ['audit', 'verify'];
    const out = expectJsonLine(args, await cli(args), ['ok', 'workspaces']);
    expect(out.workspaces).toContainEqual({ workspaceId: W, checked: 3, anchoredAt: 0 });

    const kept = await chain(4, Date.now() - 4000);
    // The first two are older than the cut: they go, and the second's hash anchors the chain.
    const cut = Number((await knex()('audit_entries').where({ workspace_id: kept, seq: 3 }).first()).at);
    expect(await deleteEntriesBefore(knex(), cut)).toBeGreaterThanOrEqual(2);
    const one = ['audit', 'verify', '--workspace', kept];
    expect(expectJsonLine(one, await cli(one), ['ok', 'workspaces']).workspaces).toEqual([
      { workspaceId: kept, checked: 2, anchoredAt: 2 },
    ]);
  });

  it('audit verify names the first entry that does not hold: edited, deleted, reordered', async () => {
    const edited = await chain(3);
    const second = await knex()('audit_entries').where({ workspace_id: edited, seq: 2 }).first();
    await knex()('audit_entries')
      .where({ id: second.id })
      .update({ changes: JSON.stringify({ name: { to: 'forged' } }) });
    const args = ['audit', 'verify', '--workspace', edited];
    const r = await cli(args);
    expectFailure(args, r, new RegExp(`broken at entry 2 \\(${second.id}\\): .*edited`));
    expect(r.code).toBe(1);
    // Without --workspace too, naming the workspace.
    const all = await cli(['audit', 'verify']);
    expect(all.code).toBe(1);
    expect(all.stderr).toMatch(/audit chain of workspace ws_\w+ is broken/);

    const gap = await chain(3);
    await knex()('audit_entries').where({ workspace_id: gap, seq: 2 }).delete();
    const g = ['audit', 'verify', '--workspace', gap];
    expectFailure(g, await cli(g), /broken at entry 2: entry 2 is missing/);

    const swapped = await chain(3);
    // The actor changed in place: the hash no longer covers what the row says.
    await knex()('audit_entries')
      .where({ workspace_id: swapped, seq: 3 })
      .update({ actor_type: 'cli', actor_id: null });
    const s = ['audit', 'verify', '--workspace', swapped];
    expectFailure(s, await cli(s), /broken at entry 3 .*edited/);
  });
});
