// The audit log's chain on each engine, without a server: appends from many transactions at once
// take consecutive places in one chain (serialised per workspace), two workspaces keep separate
// chains, and retention (runRetention with AUDIT_RETENTION_DAYS) deletes only old entries and
// leaves an anchor from which the chain still verifies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetention } from '../../src/db/repos/retention';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { CLI_ACTOR, audit } from '../../src/operations/audit';
import { verifyChain } from '../../src/operations/audit-log';
import { rehashChain } from '../support/audit';
import { type MigratedDatabase, openMigratedDatabase, testEngines } from '../support/databases';

const DAY = 86_400_000;

describe.each(testEngines())('the audit chain on %s', (engine) => {
  let db: MigratedDatabase;
  beforeAll(async () => (db = await openMigratedDatabase(engine, { poolMax: 8 })));
  afterAll(() => db?.close());

  const record = (workspaceId: string, n: number) =>
    db.knex.transaction((trx) =>
      audit(trx, CLI_ACTOR, workspaceId, { action: 'tag.created', objectType: 'tag', objectId: `tag_${n}` }),
    );

  it('appends made at once take consecutive places, one chain per workspace, and verify', async () => {
    const a = await createWorkspace(db.knex, 'A', 'growth');
    const b = await createWorkspace(db.knex, 'B', 'growth');
    await Promise.all(Array.from({ length: 40 }, (_, i) => record(i % 2 ? a : b, i)));
    for (const ws of [a, b]) {
      const seqs = (await db.knex('audit_entries').where({ workspace_id: ws }).orderBy('seq')).map((r: any) =>
        Number(r.seq),
      );
      expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await verifyChain(db.knex, ws)).toMatchObject({ ok: true, checked: 20, anchoredAt: 0 });
    }
  });

  it('retention deletes entries older than AUDIT_RETENTION_DAYS only, and the chain verifies from its anchor', async () => {
    const ws = await createWorkspace(db.knex, 'Kept', 'growth');
    for (let i = 0; i < 5; i++) await record(ws, i);
    const now = Date.now();
    // The first three are 31 days old (entries are written, never updated, by the service).
    await db
      .knex('audit_entries')
      .where({ workspace_id: ws })
      .andWhere('seq', '<=', 3)
      .update({ at: now - 31 * DAY });
    const stale = await verifyChain(db.knex, ws);
    expect(stale).toMatchObject({ ok: false, firstBad: { seq: 1 } });
    // Hash the set-up's rewrite again so the chain holds before retention runs.
    await rehashChain(db.knex, ws);
    expect((await runRetention(db.knex, now, 400)).auditEntriesDeleted).toBe(0);
    expect((await runRetention(db.knex, now, 30)).auditEntriesDeleted).toBe(3);
    expect(await db.knex('audit_anchors').where({ workspace_id: ws }).first()).toMatchObject({
      hash: expect.any(String),
    });
    expect(await verifyChain(db.knex, ws)).toEqual({ workspaceId: ws, ok: true, checked: 2, anchoredAt: 3 });
    // The next entry continues the chain after the kept ones.
    await record(ws, 9);
    expect(await verifyChain(db.knex, ws)).toMatchObject({ ok: true, checked: 3 });
  });
});
