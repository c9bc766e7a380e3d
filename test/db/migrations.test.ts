// Migrations go up and down on every engine.
import { describe, expect, it } from 'vitest';
import { migrateDown, migrateLatest, type Database } from '../../src/db/knex';
import { migrationSource } from '../../src/db/migrations';
import { SQLITE_LINK_BY_ADDRESS } from '../../src/db/redirect-rows';
import { runClickFold } from '../../src/db/repos/click-folds';
import { insertConversion } from '../../src/db/repos/conversions';
import { testEngines, withFreshDatabase } from '../support/databases';
import { linkRow } from '../support/stored-rows';

/** The names of a table's indexes. */
async function indexNames(db: Database, engine: string, table: string): Promise<string[]> {
  return engine === 'sqlite'
    ? (await db.knex.raw(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`, [table])).map(
        (r: any) => r.name,
      )
    : (await db.knex.raw(`SELECT indexname AS name FROM pg_indexes WHERE tablename = ?`, [table])).rows.map(
        (r: any) => r.name,
      );
}

describe.each(testEngines())('migrations on %s', (engine) => {
  it('migrate up creates every table, down removes them, up again works', async () => {
    await withFreshDatabase(engine, async (db) => {
      await migrateLatest(db);
      for (const t of [
        'workspaces',
        'users',
        'memberships',
        'api_keys',
        'tags',
        'domains',
        'campaigns',
        'assets',
        'links',
        'link_tags',
        'qr_codes',
        'rate_limits',
      ]) {
        expect(await db.knex.schema.hasTable(t), t).toBe(true);
      }
      await migrateDown(db);
      expect(await db.knex.schema.hasTable('links')).toBe(false);
      expect(await db.knex.schema.hasTable('workspaces')).toBe(false);
      await migrateLatest(db);
      expect(await db.knex.schema.hasTable('links')).toBe(true);
    });
  });

  it('reports (20261130000000): a token hash looked up uniquely; down removes the table and up makes it again', async () => {
    await withFreshDatabase(engine, async (db) => {
      await migrateLatest(db);
      const ws = { id: 'ws_r', name: 'R', plan: 'growth', created_at: 1 };
      await db.knex('workspaces').insert(ws);
      const row = (id: string, hash: string) => ({
        id,
        workspace_id: 'ws_r',
        kind: 'CONVERSIONS',
        title: 't',
        params: '{"window":{"lastDays":7}}',
        visibility: 'PRIVATE',
        token_hash: hash,
        token_sealed: 'v1.x.y.z',
        password_hash: null,
        created_by: null,
        created_at: 1,
        updated_at: 1,
      });
      await db.knex('reports').insert(row('rpt_1', 'a'.repeat(64)));
      await expect(db.knex('reports').insert(row('rpt_2', 'a'.repeat(64)))).rejects.toThrow();
      await db.knex.migrate.down({ migrationSource, name: '20261130000000_reports' });
      expect(await db.knex.schema.hasTable('reports')).toBe(false);
      await db.knex.migrate.up({ migrationSource });
      expect(await db.knex.schema.hasTable('reports')).toBe(true);
    });
  });

  it('sso (20270106000000): a domain belongs to one provider; down removes the tables and up makes them again', async () => {
    await withFreshDatabase(engine, async (db) => {
      await migrateLatest(db);
      for (const id of ['ws_a', 'ws_b']) {
        await db.knex('workspaces').insert({ id, name: id, plan: 'growth', created_at: 1 });
        await db.knex('sso_providers').insert({
          workspace_id: id,
          issuer: 'https://login.example',
          client_id: 'c',
          client_secret_sealed: 'v1.x.y.z',
          default_role: 'MEMBER',
          enabled: true,
          password_sign_in: true,
          created_at: 1,
          updated_at: 1,
        });
      }
      await db.knex('sso_domains').insert({ domain: 'acme.example', workspace_id: 'ws_a' });
      await expect(db.knex('sso_domains').insert({ domain: 'acme.example', workspace_id: 'ws_b' })).rejects.toThrow();
      await db.knex.migrate.down({ migrationSource, name: '20270106000000_sso' });
      for (const t of ['sso_providers', 'sso_domains', 'sso_identities', 'sso_logins'])
        expect(await db.knex.schema.hasTable(t), t).toBe(false);
      await db.knex.migrate.up({ migrationSource });
      expect(await db.knex.schema.hasTable('sso_logins')).toBe(true);
    });
  });

  it('daily clicks keep their counts when rekeyed by workspace (20261122080000) and back', async () => {
    await withFreshDatabase(engine, async (db) => {
      const rows = () =>
        db
          .knex('link_daily_clicks')
          .orderBy(['link_id', 'day'])
          .select('workspace_id', 'link_id', 'day', 'clicks', 'scans');
      const plain = (rs: any[]) =>
        rs.map((r) => ({ ...r, day: Number(r.day), clicks: Number(r.clicks), scans: Number(r.scans) }));
      const seeded = [
        { workspace_id: 'ws_a', link_id: 'lnk_1', day: 20_000, clicks: 5, scans: 1 },
        { workspace_id: 'ws_a', link_id: 'lnk_1', day: 20_001, clicks: 7, scans: 0 },
        { workspace_id: 'ws_b', link_id: 'lnk_2', day: 20_000, clicks: 3, scans: 3 },
      ];
      await migrateLatest(db);
      await db.knex.migrate.down({ migrationSource, name: '20261122080000_daily_clicks_by_workspace' });
      await db.knex('link_daily_clicks').insert(seeded);
      await db.knex.migrate.up({ migrationSource });
      expect(plain(await rows())).toEqual(seeded);
      // One B-tree per count: the key is the only index (WITHOUT ROWID on SQLite).
      if (engine === 'sqlite') {
        expect(
          (await db.knex.raw(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'link_daily_clicks'`))[0]
            .sql,
        ).toMatch(/WITHOUT ROWID/);
        expect(
          await db.knex.raw(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'link_daily_clicks'`),
        ).toEqual([]);
      } else {
        const idx = await db.knex.raw(`SELECT indexdef FROM pg_indexes WHERE tablename = 'link_daily_clicks'`);
        expect(idx.rows.map((r: any) => r.indexdef)).toEqual([expect.stringMatching(/\(workspace_id, link_id, day\)/)]);
      }
      // The flush's upsert names the new key; a second row for the same key is refused.
      await db.knex.raw(`INSERT INTO link_daily_clicks (link_id, workspace_id, day, clicks, scans) VALUES ('lnk_1', 'ws_a', 20000, 2, 0)
                         ON CONFLICT (workspace_id, link_id, day) DO UPDATE SET clicks = link_daily_clicks.clicks + excluded.clicks`);
      expect(plain(await rows())[0].clicks).toBe(7);
      await expect(db.knex('link_daily_clicks').insert(seeded[1])).rejects.toThrow();
      await db.knex.migrate.down({ migrationSource, name: '20261122080000_daily_clicks_by_workspace' });
      expect(plain(await rows())).toEqual([{ ...seeded[0], clicks: 7 }, seeded[1], seeded[2]]);
      await expect(db.knex('link_daily_clicks').insert(seeded[2])).rejects.toThrow();
      await migrateLatest(db);
      expect(plain(await rows())).toHaveLength(3);
    });
  });

  it('click windows (20261122090000) start from the last 8 days of raw clicks and replace the per-link click index', async () => {
    await withFreshDatabase(engine, async (db) => {
      const W = 300_000;
      const now = Math.floor(Date.now() / W) * W;
      const click = (link_id: string, occurred_at: number, country: string | null) => ({
        workspace_id: 'ws_a',
        link_id,
        occurred_at,
        country,
        device: 'desktop',
      });
      const linkIndex = () => indexNames(db, engine, 'clicks');
      await migrateLatest(db);
      await db.knex.migrate.down({ migrationSource, name: '20261122090000_click_windows' });
      expect(await linkIndex()).toContain('clicks_link_id_occurred_at_index');
      await db.knex('clicks').insert([
        click('lnk_1', now - 2 * W + 1, 'DE'),
        click('lnk_1', now - 2 * W + 2, 'DE'),
        click('lnk_1', now - 2 * W + 3, null),
        click('lnk_1', now - W + 5, 'DE'),
        click('lnk_2', now - W + 6, 'FR'),
        click('lnk_1', now - 9 * 86_400_000, 'DE'), // older than the alerts look back: not carried over
      ]);
      await db.knex.migrate.up({ migrationSource });
      const windows = await db
        .knex('link_click_windows')
        .orderBy(['window_start', 'link_id', 'country'])
        .select('window_start', 'link_id', 'country', 'workspace_id', 'clicks');
      expect(windows.map((r) => ({ ...r, window_start: Number(r.window_start), clicks: Number(r.clicks) }))).toEqual([
        { window_start: now - 2 * W, link_id: 'lnk_1', country: '', workspace_id: 'ws_a', clicks: 1 },
        { window_start: now - 2 * W, link_id: 'lnk_1', country: 'DE', workspace_id: 'ws_a', clicks: 2 },
        { window_start: now - W, link_id: 'lnk_1', country: 'DE', workspace_id: 'ws_a', clicks: 1 },
        { window_start: now - W, link_id: 'lnk_2', country: 'FR', workspace_id: 'ws_a', clicks: 1 },
      ]);
      expect(await linkIndex()).not.toContain('clicks_link_id_occurred_at_index');
      if (engine === 'sqlite') {
        // The alerts name each window start: one key lookup per window, not a scan.
        const plan = await db.knex.raw(
          `EXPLAIN QUERY PLAN SELECT window_start, country, clicks FROM link_click_windows WHERE window_start IN (?, ?) AND link_id = ?`,
          [now, now - W, 'lnk_1'],
        );
        expect(plan.map((r: any) => r.detail).join(' ')).toMatch(
          /SEARCH link_click_windows USING PRIMARY KEY \(window_start=\? AND link_id=\?\)/,
        );
      }
      await db.knex.migrate.down({ migrationSource, name: '20261122090000_click_windows' });
      expect(await db.knex.schema.hasTable('link_click_windows')).toBe(false);
      expect(await linkIndex()).toContain('clicks_link_id_occurred_at_index');
      await migrateLatest(db);
    });
  });

  it('raw clicks have no index on their time alone (20261123010000), which down restores', async () => {
    await withFreshDatabase(engine, async (db) => {
      const indexes = () => indexNames(db, engine, 'clicks');
      await migrateLatest(db);
      expect(await indexes()).not.toContain('clicks_occurred_at_index');
      // The conversion rates' index stays.
      expect(await indexes()).toContain('clicks_workspace_id_occurred_at_index');
      await db.knex.migrate.down({ migrationSource, name: '20261123010000_clicks_retention_by_id' });
      expect(await indexes()).toContain('clicks_occurred_at_index');
      await migrateLatest(db);
      expect(await indexes()).not.toContain('clicks_occurred_at_index');
    });
  });

  it('the redirect lookup reads one covering index on SQLite (20261123000000), which down removes', async () => {
    await withFreshDatabase(engine, async (db) => {
      const indexes = () => indexNames(db, engine, 'links');
      await migrateLatest(db);
      if (engine === 'sqlite') {
        expect(await indexes()).toEqual(expect.arrayContaining(['links_live_slug', 'links_redirect']));
        // Every column the store reads is in the index: SQLite names it a covering index.
        const plan = await db.knex.raw(`EXPLAIN QUERY PLAN ${SQLITE_LINK_BY_ADDRESS}`, ['', 'a']);
        expect(plan.map((r: any) => r.detail).join(' ')).toMatch(
          /SEARCH links USING COVERING INDEX links_redirect \(domain_key=\? AND slug=\?\)/,
        );
      } else {
        expect(await indexes()).not.toContain('links_redirect');
      }
      await db.knex.migrate.down({ migrationSource, name: '20261123000000_links_redirect_index' });
      expect(await indexes()).not.toContain('links_redirect');
      expect(await indexes()).toContain('links_live_slug');
      await migrateLatest(db);
    });
  });
  it("conversion blocks count every custom name together and the events' indexes cover a summary's columns (20261202000000), which down takes back", async () => {
    await withFreshDatabase(engine, async (db) => {
      const MIGRATION = '20261202000000_conversion_block_reads';
      const indexes = () => indexNames(db, engine, 'conversions');
      const byEveryName = () =>
        db
          .knex('conversion_block_type_link')
          .where({ event_type: 'custom', custom_name: '' })
          .select('link_id', 'conversions');
      await migrateLatest(db);
      const at = Date.now();
      await db.knex.transaction(async (trx) => {
        for (const [i, name] of ['webinar', 'trial', 'webinar'].entries()) {
          await insertConversion(trx, {
            id: `cnv_m${i}`,
            workspace_id: 'ws_a',
            event_type: 'custom',
            custom_name: name,
            link_id: 'lnk_1',
            campaign_id: null,
            qr_code_id: null,
            amount_minor: null,
            currency: null,
            metadata: null,
            occurred_at: at,
            created_at: at,
          });
        }
      });
      expect((await byEveryName()).map((r: any) => [r.link_id, Number(r.conversions)])).toEqual([['lnk_1', 3]]);
      expect(await indexes()).toEqual(
        expect.arrayContaining(['conversions_by_type', 'conversions_by_link', 'conversions_by_campaign']),
      );
      expect(await indexes()).not.toContain('conversions_ws_type_time');
      if (engine === 'sqlite') {
        // A window's events of one type with their breakdowns come from the index alone.
        const plan = await db.knex.raw(
          `EXPLAIN QUERY PLAN SELECT link_id, currency, count(*) FROM conversions WHERE workspace_id = ? AND event_type = ? AND occurred_at >= ? AND occurred_at < ? GROUP BY 1, 2`,
          ['ws_a', 'custom', 0, at + 1],
        );
        expect(plan.map((r: any) => r.detail).join(' ')).toMatch(/USING COVERING INDEX conversions_by_type/);
      }
      await db.knex.migrate.down({ migrationSource, name: MIGRATION });
      expect(await byEveryName()).toEqual([]);
      expect(
        await db.knex('conversion_block_type_link').where({ event_type: 'custom' }).sum({ n: 'conversions' }),
      ).toEqual([{ n: engine === 'sqlite' ? 3 : '3' }]);
      expect(await indexes()).toEqual(
        expect.arrayContaining(['conversions_ws_type_time', 'conversions_workspace_id_link_id_occurred_at_index']),
      );
      expect(await indexes()).not.toContain('conversions_by_type');
      await migrateLatest(db);
      expect((await byEveryName()).map((r: any) => [r.link_id, Number(r.conversions)])).toEqual([['lnk_1', 3]]);
    });
  });

  it('deleted links have an index of their own (20261202010000), holding no live link, which down removes', async () => {
    await withFreshDatabase(engine, async (db) => {
      const indexes = () => indexNames(db, engine, 'links');
      const definition = async () =>
        engine === 'sqlite'
          ? (await db.knex.raw(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'links_deleted'`))[0].sql
          : (await db.knex.raw(`SELECT indexdef AS sql FROM pg_indexes WHERE indexname = 'links_deleted'`)).rows[0].sql;
      await migrateLatest(db);
      expect(await indexes()).toContain('links_deleted');
      // Partial: creating or changing a live link never writes to it.
      expect(await definition()).toMatch(/WHERE \(?deleted_at IS NOT NULL\)?/i);
      await db.knex.migrate.down({ migrationSource, name: '20261202010000_deleted_links_index' });
      expect(await indexes()).not.toContain('links_deleted');
      await migrateLatest(db);
      expect(await indexes()).toContain('links_deleted');
    });
  });

  it('API keys get a name (20270101000000): keys made before keep working without one; down drops only the name', async () => {
    await withFreshDatabase(engine, async (db) => {
      await migrateLatest(db);
      await db.knex.migrate.down({ migrationSource, name: '20270101000000_api_key_names' });
      expect(await db.knex.schema.hasColumn('api_keys', 'name')).toBe(false);
      await db.knex('workspaces').insert({ id: 'ws_k', name: 'K', plan: 'growth', created_at: 1 });
      await db.knex('users').insert({ id: 'usr_k', email: 'k@example.com', created_at: 1 });
      const key = (id: string) => ({
        id,
        workspace_id: 'ws_k',
        user_id: 'usr_k',
        key_hash: id.padEnd(64, '0'),
        key_hint: 'abcd',
        scopes: 'links:read',
        expires_at: null,
        revoked_at: null,
        created_at: 1,
      });
      await db.knex('api_keys').insert(key('key_old'));
      await migrateLatest(db);
      expect((await db.knex('api_keys').where({ id: 'key_old' }).first()).name).toBeNull();
      await db.knex('api_keys').insert({ ...key('key_new'), name: 'Zapier' });
      expect((await db.knex('api_keys').where({ id: 'key_new' }).first()).name).toBe('Zapier');
      await db.knex.migrate.down({ migrationSource, name: '20270101000000_api_key_names' });
      expect(await db.knex.schema.hasColumn('api_keys', 'name')).toBe(false);
      expect((await db.knex('api_keys').orderBy('id')).map((r: any) => r.id)).toEqual(['key_new', 'key_old']);
    });
  });

  it('second factors (20270104000000): workspaces start without the requirement; down keeps every workspace and membership', async () => {
    await withFreshDatabase(engine, async (db) => {
      const name = '20270104000000_second_factors';
      await migrateLatest(db);
      await db.knex.migrate.down({ migrationSource, name });
      expect(await db.knex.schema.hasTable('totp_factors')).toBe(false);
      await db.knex('workspaces').insert({ id: 'ws_f', name: 'F', plan: 'growth', created_at: 1 });
      await db.knex('users').insert({ id: 'usr_f', email: 'f@example.com', created_at: 1 });
      await db.knex('memberships').insert({ workspace_id: 'ws_f', user_id: 'usr_f', role: 'OWNER', created_at: 1 });
      await migrateLatest(db);
      expect(Boolean((await db.knex('workspaces').where({ id: 'ws_f' }).first()).require_second_factor)).toBe(false);
      await db.knex('workspaces').where({ id: 'ws_f' }).update({ require_second_factor: true });
      await db
        .knex('totp_factors')
        .insert({ user_id: 'usr_f', secret_sealed: 'v1.a.b.c', enabled_at: 1, last_step: 2 });
      await db.knex('recovery_codes').insert({ user_id: 'usr_f', code_hash: 'h'.repeat(64), created_at: 1 });
      // A code is kept once per person.
      await expect(
        db.knex('recovery_codes').insert({ user_id: 'usr_f', code_hash: 'h'.repeat(64), created_at: 2 }),
      ).rejects.toThrow();
      await db.knex.migrate.down({ migrationSource, name });
      for (const t of ['totp_factors', 'recovery_codes', 'second_factor_challenges'])
        expect(await db.knex.schema.hasTable(t), t).toBe(false);
      expect(await db.knex.schema.hasColumn('workspaces', 'require_second_factor')).toBe(false);
      // Dropping the column rebuilt nothing: what references the workspace is still there.
      expect(await db.knex('memberships').where({ workspace_id: 'ws_f' })).toHaveLength(1);
      await migrateLatest(db);
      expect(await db.knex.schema.hasTable('totp_factors')).toBe(true);
    });
  });

  it('passkeys (20270107000000): a credential id is kept once; removing a person removes theirs; down drops both tables', async () => {
    await withFreshDatabase(engine, async (db) => {
      const name = '20270107000000_passkeys';
      await migrateLatest(db);
      await db.knex('users').insert({ id: 'usr_p', email: 'p@example.com', created_at: 1 });
      const passkey = (id: string) => ({
        id,
        user_id: 'usr_p',
        credential_id: 'cred-1',
        public_key: 'pk',
        counter: 0,
        name: 'Laptop',
        created_at: 1,
      });
      await db.knex('passkeys').insert(passkey('pk_1'));
      // One authenticator's credential belongs to one passkey row, whoever adds it.
      await expect(db.knex('passkeys').insert(passkey('pk_2'))).rejects.toThrow();
      await db
        .knex('passkey_challenges')
        .insert({ id: 'c'.repeat(64), purpose: 'sign_in', created_at: 1, expires_at: 2 });
      await db.knex('users').where({ id: 'usr_p' }).delete();
      expect(await db.knex('passkeys')).toHaveLength(0);
      await db.knex.migrate.down({ migrationSource, name });
      for (const t of ['passkeys', 'passkey_challenges']) expect(await db.knex.schema.hasTable(t), t).toBe(false);
      await migrateLatest(db);
      expect(await db.knex.schema.hasTable('passkeys')).toBe(true);
    });
  });

  it('mail and sessions (20270105000000): earlier rows keep working; down removes what it added', async () => {
    await withFreshDatabase(engine, async (db) => {
      const name = '20270105000000_mail_and_sessions';
      await migrateLatest(db);
      await db.knex.migrate.down({ migrationSource, name });
      expect(await db.knex.schema.hasTable('mail_outbox')).toBe(false);
      await db.knex('workspaces').insert({ id: 'ws_m', name: 'M', plan: 'growth', created_at: 1 });
      await db.knex('users').insert({ id: 'usr_m', email: 'm@example.com', created_at: 1 });
      await db.knex('password_setup_tokens').insert({
        token_hash: 'a'.repeat(64),
        user_id: 'usr_m',
        created_at: 1,
        expires_at: 2,
        used_at: null,
      });
      const session = { user_id: 'usr_m', csrf_token: 'c', created_at: 1, last_used_at: 1, expires_at: 2 };
      await db.knex('sessions').insert({ id: 's'.repeat(64), ...session });
      await db.knex('api_keys').insert({
        id: 'key_m',
        workspace_id: 'ws_m',
        user_id: 'usr_m',
        key_hash: 'k'.repeat(64),
        key_hint: 'abcd',
        scopes: 'links:read',
        created_at: 1,
      });
      await db.knex.migrate.up({ migrationSource });
      // A set-up link made before is a set-up link; sessions and keys made before know nothing more.
      expect((await db.knex('password_setup_tokens').first()).kind).toBe('setup');
      expect(await db.knex('sessions').first('browser', 'os', 'place')).toEqual({
        browser: null,
        os: null,
        place: null,
      });
      expect((await db.knex('api_keys').first('last_used_at')).last_used_at).toBeNull();
      // A browser is remembered once per person.
      const browser = { user_id: 'usr_m', browser_hash: 'b'.repeat(64), first_seen_at: 1, last_seen_at: 1 };
      await db.knex('known_browsers').insert(browser);
      await expect(db.knex('known_browsers').insert(browser)).rejects.toThrow();
      await db.knex('mail_outbox').insert({
        id: 'mail_1',
        kind: 'password_reset',
        version: 1,
        recipient: 'm@example.com',
        payload_sealed: 'v1.x.y.z',
        created_at: 1,
        expires_at: 2,
        next_attempt_at: 1,
      });
      await db.knex('password_setup_tokens').insert({
        token_hash: 'r'.repeat(64),
        user_id: 'usr_m',
        created_at: 1,
        expires_at: 2,
        used_at: null,
        kind: 'reset',
      });
      await db.knex.migrate.down({ migrationSource, name });
      for (const table of ['mail_outbox', 'known_browsers']) expect(await db.knex.schema.hasTable(table)).toBe(false);
      expect(await db.knex.schema.hasColumn('api_keys', 'last_used_at')).toBe(false);
      expect(await db.knex.schema.hasColumn('sessions', 'browser')).toBe(false);
      // The set-up link stays; the reset link goes with its kind.
      expect(await db.knex('password_setup_tokens').pluck('token_hash')).toEqual(['a'.repeat(64)]);
      expect(await db.knex('sessions').pluck('id')).toEqual(['s'.repeat(64)]);
      await migrateLatest(db);
      expect(await db.knex.schema.hasTable('mail_outbox')).toBe(true);
    });
  });

  it('invitations (20261203000000): set-up links made before it are used up; down removes the table', async () => {
    await withFreshDatabase(engine, async (db) => {
      await migrateLatest(db);
      await db.knex.migrate.down({ migrationSource, name: '20261203000000_invitations' });
      expect(await db.knex.schema.hasTable('invitations')).toBe(false);
      await db.knex('users').insert({ id: 'usr_m', email: 'm@example.com', created_at: 1 });
      const token = (hash: string, usedAt: number | null) => ({
        token_hash: hash,
        user_id: 'usr_m',
        created_at: 1,
        expires_at: Date.now() + 3_600_000,
        used_at: usedAt,
      });
      await db.knex('password_setup_tokens').insert([token('a'.repeat(64), null), token('b'.repeat(64), 5)]);
      await migrateLatest(db);
      expect(await db.knex.schema.hasTable('invitations')).toBe(true);
      const rows = await db.knex('password_setup_tokens').orderBy('token_hash');
      expect(rows.map((r: any) => r.used_at === null)).toEqual([false, false]);
      expect(Number(rows[1].used_at)).toBe(5);
    });
  });

  it('domain claims (20261203010000): one verified row per host, claims side by side; down keeps one', async () => {
    await withFreshDatabase(engine, async (db) => {
      const name = '20261203010000_domain_claims';
      const domain = (id: string, ws: string, host: string, verifiedAt: number | null, createdAt = 1) => ({
        id,
        workspace_id: ws,
        host,
        status: verifiedAt === null ? 'PENDING' : 'ACTIVE',
        verified_at: verifiedAt,
        created_at: createdAt,
      });
      const verify = (id: string, at: number) =>
        db.knex('domains').where({ id }).update({ status: 'ACTIVE', verified_at: at });
      await migrateLatest(db);
      await db.knex.migrate.down({ migrationSource, name });
      const workspaces = ['ws_a', 'ws_b', 'ws_c'].map((id) => ({ id, name: id, plan: 'growth', created_at: 1 }));
      await db.knex('workspaces').insert(workspaces);
      // Before: one row per host, whatever its state.
      await db.knex('domains').insert(domain('dom_1', 'ws_a', 'go.example.com', null));
      await expect(db.knex('domains').insert(domain('dom_x', 'ws_b', 'go.example.com', null))).rejects.toThrow();

      await migrateLatest(db);
      expect(await db.knex('domains').pluck('id')).toEqual(['dom_1']);
      // Claims of several workspaces on one host sit side by side; one workspace has one row a host.
      await db.knex('domains').insert(domain('dom_2', 'ws_b', 'go.example.com', null, 2));
      await db.knex('domains').insert(domain('dom_3', 'ws_c', 'go.example.com', null, 3));
      await expect(db.knex('domains').insert(domain('dom_y', 'ws_a', 'go.example.com', null))).rejects.toThrow();
      // One verified row per host: the second verification of it fails.
      await verify('dom_2', 10);
      await expect(verify('dom_3', 11)).rejects.toThrow();
      // Disabling keeps verified_at: the host stays held.
      await db.knex('domains').where({ id: 'dom_2' }).update({ status: 'DISABLED' });
      await expect(verify('dom_1', 12)).rejects.toThrow();
      const indexes = await indexNames(db, engine, 'domains');
      expect(indexes).toEqual(expect.arrayContaining(['domains_verified_host', 'domains_host']));
      await db.knex('domains').insert(domain('dom_4', 'ws_a', 'pending.example.com', null, 5));
      await db.knex('domains').insert(domain('dom_5', 'ws_b', 'pending.example.com', null, 4));

      // Down: the verified row of a host stays, else its oldest claim; the unique host returns.
      await db.knex.migrate.down({ migrationSource, name });
      expect(await db.knex('domains').orderBy('id').pluck('id')).toEqual(['dom_2', 'dom_5']);
      await expect(db.knex('domains').insert(domain('dom_z', 'ws_c', 'pending.example.com', null))).rejects.toThrow();
      expect(await indexNames(db, engine, 'domains')).not.toContain('domains_verified_host');
      await migrateLatest(db);
      await db.knex('domains').insert(domain('dom_6', 'ws_c', 'pending.example.com', null));
    });
  });
  it('clicks keep a city and the route that served them (20261204000000), page views a city (20261204050000); down drops the cities, not the rows', async () => {
    await withFreshDatabase(engine, async (db) => {
      const columns = async (table: string) => Object.keys(await db.knex(table).columnInfo());
      await migrateLatest(db);
      expect(await columns('clicks')).toEqual(expect.arrayContaining(['city', 'route']));
      expect(await columns('page_views')).toContain('city');
      const click = {
        workspace_id: 'ws_1',
        link_id: 'lnk_1',
        occurred_at: 1,
        city: 'Testville',
        route: 'r'.repeat(40),
      };
      await db.knex('clicks').insert(click);
      expect(await db.knex('clicks').first('city', 'route')).toEqual({ city: 'Testville', route: 'r'.repeat(40) });
      await db.knex.migrate.down({ migrationSource, name: '20261204050000_click_city' });
      expect(await columns('clicks')).not.toContain('city');
      expect(await columns('clicks')).toContain('route');
      expect(await columns('page_views')).not.toContain('city');
      expect(Number((await db.knex('clicks').count({ n: '*' }))[0].n)).toBe(1);
      await migrateLatest(db);
      expect(await db.knex('clicks').first('city', 'route')).toEqual({ city: null, route: 'r'.repeat(40) });
    });
  });

  it('folds with cities (20261231000000): what was folded before goes, and the next fold counts the cities', async () => {
    await withFreshDatabase(engine, async (db) => {
      const { knex } = db;
      await migrateLatest(db);
      await knex.migrate.down({ migrationSource, name: '20261231000000_fold_cities' });
      const now = Date.now();
      const day = Math.floor(now / 86_400_000) - 2;
      await knex('workspaces').insert({ id: 'ws_a', name: 'a', plan: 'business', created_at: now });
      await knex('clicks').insert(
        ['Springfield', 'Springfield', null].map((city) => ({
          workspace_id: 'ws_a',
          link_id: 'lnk_1',
          occurred_at: day * 86_400_000 + 1000,
          country: 'US',
          city,
        })),
      );
      // Folded as before cities: a day, a block and a piece without a city dimension.
      const dims = JSON.stringify({
        country: { US: 3 },
        device: { '': 3 },
        browser: { '': 3 },
        os: { '': 3 },
        referrer: { '': 3 },
      });
      const folded = { workspace_id: 'ws_a', link_id: 'lnk_1', clicks: 3, dims };
      await knex('link_day_breakdowns').insert({ ...folded, day });
      await knex('link_block_breakdowns').insert({ ...folded, block: Math.floor(day / 8) });
      await knex('link_breakdown_pieces').insert({ ...folded, day: day + 1, upto: 1 });
      await knex('click_fold_blocks').insert({ block: Math.floor(day / 8) });
      await knex('click_folds').insert({ day, through: (day + 1) * 86_400_000, closed: true });
      const tables = [
        'link_day_breakdowns',
        'link_block_breakdowns',
        'link_breakdown_pieces',
        'click_fold_blocks',
        'click_folds',
      ];
      const counts = async () => Promise.all(tables.map(async (t) => Number((await knex(t).count({ n: '*' }))[0].n)));
      expect(await counts()).toEqual([1, 1, 1, 1, 1]);
      await knex.migrate.up({ migrationSource, name: '20261231000000_fold_cities' });
      expect(await counts()).toEqual([0, 0, 0, 0, 0]);
      expect(Number((await knex('clicks').count({ n: '*' }))[0].n)).toBe(3);
      await runClickFold(knex, now);
      const row = await knex('link_day_breakdowns').where({ link_id: 'lnk_1', day }).first('clicks', 'dims');
      expect(Number(row.clicks)).toBe(3);
      expect(JSON.parse(row.dims).city).toEqual({ 'US:Springfield': 2, '': 1 });
      // Down changes nothing: the older fold reads these rows as it read its own.
      await knex.migrate.down({ migrationSource, name: '20261231000000_fold_cities' });
      expect(Number((await knex('link_day_breakdowns').count({ n: '*' }))[0].n)).toBe(1);
    });
  });

  it('live link counts (20261230000000) start from the links there are and follow every write to links; down removes them', async () => {
    await withFreshDatabase(engine, async (db) => {
      const { knex } = db;
      await migrateLatest(db);
      await knex.migrate.down({ migrationSource, name: '20261230000000_live_link_counts' });
      const now = Date.now();
      for (const id of ['ws_a', 'ws_b', 'ws_c'])
        await knex('workspaces').insert({ id, name: id, plan: 'business', created_at: now });
      const row = (id: string, ws: string, deleted = false) =>
        linkRow({
          id,
          workspace_id: ws,
          created_by: 'usr_1',
          slug: id,
          original_url: 'https://example.com/',
          deleted_at: deleted ? now : null,
        });
      await knex('links').insert([row('l1', 'ws_a'), row('l2', 'ws_a'), row('l3', 'ws_a', true), row('l4', 'ws_b')]);
      /** Each workspace's counted links beside a count of its live rows. */
      const both = async () => {
        const counted = Object.fromEntries(
          (await knex('live_link_counts').select('workspace_id', 'links')).map((r) => [
            r.workspace_id,
            Number(r.links),
          ]),
        );
        const live = Object.fromEntries(
          (
            await knex('links').whereNull('deleted_at').groupBy('workspace_id').select('workspace_id').count({ n: '*' })
          ).map((r: { workspace_id?: string; n?: number | string }) => [r.workspace_id, Number(r.n)]),
        );
        for (const ws of ['ws_a', 'ws_b', 'ws_c']) expect(counted[ws] ?? 0, ws).toBe(live[ws] ?? 0);
        return counted;
      };
      await knex.migrate.up({ migrationSource, name: '20261230000000_live_link_counts' });
      expect(await both()).toEqual({ ws_a: 2, ws_b: 1 });
      // One statement of many rows in two workspaces, one of them deleted already.
      await knex('links').insert([row('l5', 'ws_a'), row('l6', 'ws_c'), row('l7', 'ws_c'), row('l8', 'ws_c', true)]);
      expect(await both()).toEqual({ ws_a: 3, ws_b: 1, ws_c: 2 });
      await knex('links').whereIn('id', ['l1', 'l6']).update({ deleted_at: now });
      await knex('links')
        .where({ id: 'l1' })
        .update({ deleted_at: now + 1 }); // deleted again: no change
      await knex('links')
        .where({ id: 'l2' })
        .update({ title: 'renamed', updated_at: now + 2 });
      expect(await both()).toEqual({ ws_a: 2, ws_b: 1, ws_c: 1 });
      await knex('links').where({ id: 'l3' }).update({ deleted_at: null });
      await knex('links').where({ id: 'l4' }).update({ workspace_id: 'ws_c' });
      await knex('links').whereIn('id', ['l5', 'l8']).delete();
      expect(await both()).toEqual({ ws_a: 2, ws_b: 0, ws_c: 2 });
      await knex.migrate.down({ migrationSource, name: '20261230000000_live_link_counts' });
      expect(await knex.schema.hasTable('live_link_counts')).toBe(false);
      await knex('links').insert(row('l9', 'ws_b'));
      await migrateLatest(db);
      expect(await both()).toEqual({ ws_a: 2, ws_b: 1, ws_c: 2 });
    });
  });
});
