// `shortlink backup --to FILE` and `shortlink restore --from FILE` (docs/operations.md, Backups):
// the embedded SQLite database copied while the service runs, with what the data directory holds
// beside it that the database names (hosted images), in one gzipped tar file; the master key only
// when asked for, since whoever holds it and the file reads every sealed secret. On Postgres the
// database's own tools (pg_dump, pg_restore) do this, and both commands say so.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as tar from 'tar';
import type { Config } from '../../config.ts';
import type { FileCommand } from './command.ts';
import { engineOf, sqliteFilename } from '../../db/knex.ts';
import { checkDatabaseFile, copyLiveDatabase } from '../../db/sqlite-files.ts';
import { conflict, invalid, notFound, storageFailed, usage } from '../../domain/errors.ts';
import { loadMasterKeyIfAny } from '../master-key.ts';

const FORMAT = 'shortlink-backup/1';
const DB_NAME = 'shortlink.db';
const KEY_NAME = 'master.key';
const ASSETS = 'assets';
const MANIFEST = 'manifest.json';

interface Manifest {
  format: typeof FORMAT;
  createdAt: string;
  /** The newest migration the database had: a restore into an older release is refused by `serve`'s migrations. */
  migration: string | null;
  masterKey: boolean;
  assets: number;
}

const ON_POSTGRES =
  'this service keeps its data in Postgres: back it up with pg_dump and restore it with pg_restore (docs/operations.md, Backups)';

function sqliteFile(config: Config): string {
  if (engineOf(config.databaseUrl) !== 'sqlite') throw usage(ON_POSTGRES);
  const file = sqliteFilename(config.databaseUrl);
  if (file === ':memory:') throw usage('DATABASE_URL is an in-memory database: there is nothing to back up');
  return path.resolve(file);
}

/** A scratch directory beside `near`, so the finished file is renamed into place, never copied. */
function scratch(near: string): string {
  const dir = path.join(path.dirname(near), `.shortlink-${randomBytes(6).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

export const backupCommand: FileCommand = {
  flags: ['to'],
  switches: ['with-master-key'],
  required: ['to'],
  async runOnFiles({ config, flags }) {
    const dbFile = sqliteFile(config);
    if (!fs.existsSync(dbFile)) throw notFound(`there is no database at ${dbFile} to back up`);
    const to = path.resolve(flags.to!);
    if (fs.existsSync(to) && fs.statSync(to).isDirectory()) throw usage(`--to names a directory: ${to}`);
    const withKey = flags['with-master-key'] === 'true';
    const key = withKey ? loadMasterKeyIfAny(config) : null;
    if (withKey && !key)
      throw notFound('--with-master-key: this service has no master key yet (no MASTER_KEY, no master.key)');

    fs.mkdirSync(path.dirname(to), { recursive: true });
    const work = scratch(to);
    try {
      const { migration, check } = copyLiveDatabase(dbFile, path.join(work, DB_NAME));
      if (check !== 'ok') throw storageFailed(`the copy of the database failed its check: ${check}`);
      const assetsDir = path.join(config.dataDir, ASSETS);
      const assets = fs.existsSync(assetsDir) ? fs.readdirSync(assetsDir).filter((f) => !f.startsWith('.')) : [];
      if (assets.length) fs.cpSync(assetsDir, path.join(work, ASSETS), { recursive: true });
      if (key) fs.writeFileSync(path.join(work, KEY_NAME), key.toString('hex'), { mode: 0o600 });
      const manifest: Manifest = {
        format: FORMAT,
        createdAt: new Date().toISOString(),
        migration,
        masterKey: Boolean(key),
        assets: assets.length,
      };
      fs.writeFileSync(path.join(work, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
      const partial = `${to}.partial`;
      await tar.create({ gzip: true, file: partial, cwd: work, portable: true }, [
        MANIFEST,
        DB_NAME,
        ...(assets.length ? [ASSETS] : []),
        ...(key ? [KEY_NAME] : []),
      ]);
      if (key) fs.chmodSync(partial, 0o600);
      // Only a whole backup takes the name: an interrupted one leaves `.partial`, never a torn file.
      fs.renameSync(partial, to);
      process.stderr.write(
        key
          ? `shortlink: ${to} HOLDS THE MASTER KEY: whoever has this file can read every webhook secret in it; keep it as you keep the key\n`
          : `shortlink: the master key is NOT in ${to}: keep it apart (MASTER_KEY, or ${path.join(config.dataDir, KEY_NAME)}); without it the restored service cannot read its webhook secrets\n`,
      );
      return { backup: to, bytes: fs.statSync(to).size, ...manifest };
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  },
};

export const restoreCommand: FileCommand = {
  flags: ['from'],
  required: ['from'],
  async runOnFiles({ config, flags }) {
    const dbFile = sqliteFile(config);
    const from = path.resolve(flags.from!);
    if (!fs.existsSync(from)) throw notFound(`there is no backup at ${from}`);
    // Restoring over a database would mix two services' data or lose one: only into a new place.
    for (const f of [dbFile, `${dbFile}-wal`]) {
      if (fs.existsSync(f)) throw conflict(`${f} exists: restore into an empty DATA_DIR (or a new DATABASE_URL file)`);
    }
    const assetsDir = path.join(config.dataDir, ASSETS);
    if (fs.existsSync(assetsDir) && fs.readdirSync(assetsDir).length)
      throw conflict(`${assetsDir} is not empty: restore into an empty DATA_DIR`);
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.mkdirSync(path.dirname(dbFile), { recursive: true });
    const work = scratch(dbFile);
    try {
      try {
        // Only the backup's own names, as plain files and directories: nothing written outside `work`.
        await tar.extract({
          file: from,
          cwd: work,
          strict: true,
          filter: (p, entry) =>
            /^(manifest\.json|shortlink\.db|master\.key|assets(\/[^/]+)*\/?)$/.test(p.replace(/^\.\//, '')) &&
            ['File', 'Directory', 'OldFile', 'ContiguousFile'].includes((entry as { type?: string }).type ?? 'File'),
        });
      } catch (err) {
        throw invalid(
          `${from} is not a Shortlink backup (it could not be read as a gzipped tar file: ${(err as Error).message})`,
        );
      }
      const manifest = readManifest(path.join(work, MANIFEST), from);
      const restored = path.join(work, DB_NAME);
      if (!fs.existsSync(restored)) throw invalid(`${from} holds no database`);
      const check = checkDatabaseFile(restored);
      if (check !== 'ok') throw invalid(`the database in ${from} failed its integrity check: ${check}`);
      const keyFile = path.join(config.dataDir, KEY_NAME);
      const key = path.join(work, KEY_NAME);
      if (manifest.masterKey && fs.existsSync(key)) {
        // The backup's key must be the one the restored service uses: any other reads none of its secrets.
        const theirs = fs.readFileSync(key, 'utf8').trim();
        const ours = loadMasterKeyIfAny(config);
        if (ours && ours.toString('hex') !== theirs)
          throw conflict(
            `this service already has another master key (${config.masterKey ? 'MASTER_KEY' : keyFile}): the backup's must be used; restore into an empty DATA_DIR without MASTER_KEY`,
          );
        if (!ours) fs.writeFileSync(keyFile, theirs, { mode: 0o600 });
      }
      if (fs.existsSync(path.join(work, ASSETS))) fs.cpSync(path.join(work, ASSETS), assetsDir, { recursive: true });
      // The database last: until it is in place there is nothing a service would start on.
      fs.renameSync(restored, dbFile);
      if (!manifest.masterKey)
        process.stderr.write(
          `shortlink: the backup holds no master key: give this service the key of the one backed up (MASTER_KEY, or ${keyFile}) before it starts, or its webhook secrets cannot be read\n`,
        );
      return { restored: dbFile, from, ...manifest };
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  },
};

function readManifest(file: string, from: string): Manifest {
  let m: Partial<Manifest>;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Manifest>;
  } catch {
    throw invalid(`${from} is not a Shortlink backup (it has no readable manifest.json)`);
  }
  if (m.format !== FORMAT)
    throw invalid(`${from} is a backup of format ${String(m.format)}; this release reads ${FORMAT}`);
  return m as Manifest;
}
