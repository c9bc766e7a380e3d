// `shortlink page ...`: bio pages (made and edited in the dashboard) published and taken down as
// "Publish" and "Unpublish" do it, page.published included. The running services learn of it
// through the change feed and show it from their next view.
import type { Config } from '../../config.ts';
import type { Database } from '../../db/knex.ts';
import * as bioPages from '../../db/repos/bio-pages.ts';
import { notFound } from '../../domain/errors.ts';
import { pageUrl, presentPage, publishPage, unpublishPage, type PageDeps } from '../../operations/pages.ts';
import { workspaceOf } from '../../operations/workspaces.ts';
import type { Command } from './command.ts';
import { CLI_ACTOR } from '../../operations/audit.ts';

const pageDeps = (db: Database, config: Config): PageDeps => ({
  knex: db.knex,
  shortDomain: config.shortDomain,
  // No redirect cache here: the services' change feeds drop theirs.
  forget: async () => undefined,
});

async function pageById(db: Database, id: string) {
  const row = await bioPages.findPage(db.knex, id);
  if (!row) throw notFound(`page ${id} not found`);
  return row;
}

const pageState = (row: bioPages.PageRow, config: Config) => ({
  id: row.id,
  handle: row.handle,
  url: pageUrl(config.shortDomain, row.handle),
  published: row.published !== null,
  publishedAt: row.published_at === null ? null : new Date(row.published_at).toISOString(),
});

export const pageCommands: Record<string, Command> = {
  'page list': {
    flags: ['workspace'],
    required: ['workspace'],
    run: async ({ db, config, flags }) => {
      await workspaceOf(db.knex, flags.workspace!);
      const rows = await bioPages.listPages(db.knex, flags.workspace!);
      return {
        data: await Promise.all(rows.map((r) => presentPage({ knex: db.knex, shortDomain: config.shortDomain }, r))),
      };
    },
  },
  'page publish': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, config, flags }) =>
      pageState(await publishPage(pageDeps(db, config), await pageById(db, flags.id!), null, CLI_ACTOR), config),
  },
  'page unpublish': {
    flags: ['id'],
    required: ['id'],
    run: async ({ db, config, flags }) =>
      pageState(await unpublishPage(pageDeps(db, config), await pageById(db, flags.id!), CLI_ACTOR), config),
  },
};
