// The app_links table (migration 20261215000000) on every engine: the shared short domain's row
// ('') and a custom domain's, which goes with its domain; what a host serves; down and up again.
import { describe, expect, it } from 'vitest';
import { migrateLatest } from '../../src/db/knex';
import { migrationSource } from '../../src/db/migrations';
import { appLinksOf, appLinksOfHost, setAppLinks } from '../../src/db/repos/app-links';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { createWorkspace } from '../../src/db/repos/workspaces';
import { testEngines, withFreshDatabase } from '../support/databases';

describe.each(testEngines())('app links in the database on %s', (engine) => {
  it('keeps the shared row and a domain’s, serves each on its host only, and drops a domain’s with it', async () => {
    await withFreshDatabase(engine, async (db) => {
      await migrateLatest(db);
      const { knex } = db;
      const ws = await createWorkspace(knex, 'Apps', 'growth');
      const domain = await addDomain(knex, ws, 'go.apps.example');
      await setAppLinks(knex, '', { apple: '{"appclips":{}}', android: null });
      await setAppLinks(knex, domain, { apple: null, android: '[1]' });
      expect(await appLinksOfHost(knex, 'sho.rt', 'sho.rt')).toEqual({ apple: '{"appclips":{}}', android: null });
      // Stored but not served while the domain is PENDING.
      expect(await appLinksOfHost(knex, 'go.apps.example', 'sho.rt')).toEqual({ apple: null, android: null });
      await setDomainStatus(knex, domain, 'ACTIVE');
      expect(await appLinksOfHost(knex, 'go.apps.example', 'sho.rt')).toEqual({ apple: null, android: '[1]' });
      // Every change is in the change feed, under a slug no link can have.
      const changes = await knex('link_changes').where({ kind: 'applinks' }).select('domain_key', 'slug');
      expect(changes).toEqual([
        { domain_key: '', slug: '/.well-known' },
        { domain_key: domain, slug: '/.well-known' },
      ]);
      await knex('workspaces').where({ id: ws }).delete();
      expect((await appLinksOf(knex, domain)).android).toBe(null);
      expect((await appLinksOf(knex, '')).apple).toBe('{"appclips":{}}');

      await knex.migrate.down({ migrationSource, name: '20261215000000_app_links' });
      expect(await knex.schema.hasTable('app_links')).toBe(false);
      await migrateLatest(db);
      expect(await knex.schema.hasTable('app_links')).toBe(true);
    });
  });
});
