// The master key made on first start (src/start/master-key.ts) when instances start together on
// one data directory, as compose.yaml's two instances do: every process ends with the same key,
// the one in the file, and nothing else is left in the directory.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const MODULE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/start/master-key.ts');

it('processes starting together on one data directory all take the one key written there', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-master-key-'));
  try {
    const script = `const { loadOrCreateMasterKey } = await import(${JSON.stringify(MODULE)});
      process.stdout.write(loadOrCreateMasterKey({ dataDir: ${JSON.stringify(dataDir)} }).toString('hex'));`;
    const keys = await Promise.all(
      Array.from({ length: 6 }, () =>
        run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]).then((r) => r.stdout),
      ),
    );
    const file = fs.readFileSync(path.join(dataDir, 'master.key'), 'utf8');
    expect(file).toMatch(/^[0-9a-f]{64}$/);
    expect(keys).toEqual(Array(6).fill(file));
    expect(fs.readdirSync(dataDir)).toEqual(['master.key']);
    expect(fs.statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
