// `shortlink app-links ...`: the app deep-link documents a short domain serves at /.well-known/.
// The shared short domain's are set only here (`--shared`): every workspace's links live on that
// host, and an app claiming it would open for all of them. `--domain ID` names a custom domain
// of any workspace, as `domain verify --id` does. Other processes serve a change from their
// next poll of the change feed. A custom domain's change is recorded in its workspace's audit
// log (domain.app_links_changed); the shared domain is no workspace's, so its change is not.
import fs from 'node:fs';
import { quoted, usage } from '../../domain/errors.ts';
import { hostnameOf } from '../../redirect/visitor.ts';
import { CLI_ACTOR } from '../../operations/audit.ts';
import { operatorAppLinks, setOperatorAppLinks, type AppLinksOf } from '../../operations/app-links.ts';
import type { Command, Flags } from './command.ts';

/** '' for --shared, else the domain id of --domain; exactly one of them. */
function domainKeyOf(flags: Flags): string {
  if (flags.shared && flags.domain !== undefined) throw usage('give --shared or --domain, not both');
  if (flags.shared) return '';
  if (flags.domain === undefined || !flags.domain.trim()) throw usage('--shared or --domain ID is required');
  return flags.domain.trim();
}

function documentFile(path: string, flag: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (err) {
    throw usage(`${flag}: cannot read ${quoted(path)} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw usage(`${flag}: ${quoted(path)} is not JSON (${(err as Error).message})`);
  }
}

const shown = (a: AppLinksOf) => ({
  domain: a.domainKey === '' ? 'shared' : a.domainKey,
  host: a.host,
  served: a.served,
  apple: a.apple,
  android: a.android,
  updatedAt: a.updatedAt === null ? null : new Date(a.updatedAt).toISOString(),
});

export const appLinkCommands: Record<string, Command> = {
  'app-links show': {
    flags: ['domain'],
    switches: ['shared'],
    required: [],
    run: async ({ db, config, flags }) =>
      shown(await operatorAppLinks(db.knex, domainKeyOf(flags), hostnameOf(config.shortDomain))),
  },
  'app-links set': {
    flags: ['domain', 'apple', 'android'],
    switches: ['shared'],
    required: [],
    run: async ({ db, config, flags }) => {
      const key = domainKeyOf(flags);
      if (flags.apple === undefined && flags.android === undefined)
        throw usage('give --apple FILE (apple-app-site-association), --android FILE (assetlinks.json) or both');
      const input = {
        apple: flags.apple === undefined ? undefined : documentFile(flags.apple, '--apple'),
        android: flags.android === undefined ? undefined : documentFile(flags.android, '--android'),
      };
      return shown(await setOperatorAppLinks(db.knex, key, hostnameOf(config.shortDomain), input, CLI_ACTOR));
    },
  },
  'app-links clear': {
    flags: ['domain'],
    switches: ['shared', 'apple', 'android'],
    required: [],
    run: async ({ db, config, flags }) => {
      const key = domainKeyOf(flags);
      // Neither named: both go.
      const both = !flags.apple && !flags.android;
      const input = {
        apple: both || flags.apple ? null : undefined,
        android: both || flags.android ? null : undefined,
      };
      return shown(await setOperatorAppLinks(db.knex, key, hostnameOf(config.shortDomain), input, CLI_ACTOR));
    },
  },
};
