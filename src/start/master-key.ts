// MASTER_KEY encrypts stored webhook secrets and signs visitor-page tokens. Without one in the
// environment it is generated into the data directory on first start. Processes sharing one
// Postgres database must be given the same MASTER_KEY.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';

export function loadOrCreateMasterKey(config: Config): Buffer {
  if (config.masterKey) return decode(config.masterKey, 'MASTER_KEY');
  const file = path.join(config.dataDir, 'master.key');
  if (fs.existsSync(file)) return decode(fs.readFileSync(file, 'utf8').trim(), file);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  // Written whole under a name of this process's own, then linked into place: instances starting
  // together on one data directory (compose.yaml's) must never read a key half-written.
  const own = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(own, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(own, file);
  } catch (err) {
    // Another process put its key there first: use theirs.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return decode(fs.readFileSync(file, 'utf8').trim(), file);
    throw err;
  } finally {
    fs.rmSync(own, { force: true });
  }
  return key;
}

/** The key this service would use, without making one: null while it has none. */
export function loadMasterKeyIfAny(config: Config): Buffer | null {
  if (config.masterKey) return decode(config.masterKey, 'MASTER_KEY');
  const file = path.join(config.dataDir, 'master.key');
  return fs.existsSync(file) ? decode(fs.readFileSync(file, 'utf8').trim(), file) : null;
}

function decode(value: string, where: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`${where} must be 32 bytes, as 64 hex characters or base64`);
  return key;
}
