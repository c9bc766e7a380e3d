// The change feed applies each change once, though its overlapping window reads a row on many
// polls: a domain's change empties a process's whole redirect cache and starts the preload again.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordLinkChange } from '../../src/db/repos/link-changes';
import { ChangeFeed } from '../../src/redirect/changes';
import { openMigratedDatabase, testEngines, type MigratedDatabase } from '../support/databases';

describe.each(testEngines())('the change feed on %s', (engine) => {
  let db: MigratedDatabase;
  beforeAll(async () => {
    db = await openMigratedDatabase(engine);
  });
  afterAll(async () => db?.close());

  it('applies a change once however many polls read it, and a later one too', async () => {
    const seen: string[] = [];
    const feed = new ChangeFeed(
      db.knex,
      {
        linkChanged: (domainKey, slug) => seen.push(`link ${domainKey}/${slug}`),
        domainChanged: () => seen.push('domain'),
        pageChanged: (handle) => seen.push(`page ${handle}`),
      },
      pino({ level: 'silent' }),
    );
    await recordLinkChange(db.knex, 'domain', 'dom_1', 'example.com');
    await recordLinkChange(db.knex, 'link', '', 'abc');
    for (let i = 0; i < 5; i++) await feed.poll();
    expect(seen).toEqual(['domain', 'link /abc']);
    await recordLinkChange(db.knex, 'page', '', 'shop');
    for (let i = 0; i < 3; i++) await feed.poll();
    expect(seen).toEqual(['domain', 'link /abc', 'page shop']);
  });
});
