// The service compiled into dist/ (tsc -p tsconfig.build.json, what `npm run build` does), for the
// suites that run the `shortlink` command as production does: from dist/, without a TypeScript
// loader. The build runs again only when a source file changed since the last one (a stamp of
// every file's path, size and mtime), so the suites always run the sources as they are now.
// Test processes may ask at the same time: one builds under a lock directory, the others wait.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STAMP = path.join(ROOT, 'dist/.sources-stamp');
const LOCK = path.join(ROOT, 'dist/.compiling');
const run = promisify(execFile);

/** What the compiled output depends on: the service's sources (not the dashboard's) and the configs. */
function sourcesStamp(): string {
  const hash = createHash('sha256');
  const add = (file: string) => {
    const s = fs.statSync(file);
    hash.update(`${path.relative(ROOT, file)}\0${s.size}\0${s.mtimeMs}\n`);
  };
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (full !== path.join(ROOT, 'src/web')) walk(full);
      } else add(full);
    }
  };
  walk(path.join(ROOT, 'src'));
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) add(path.join(ROOT, file));
  return hash.digest('hex');
}

const readStamp = () => (fs.existsSync(STAMP) ? fs.readFileSync(STAMP, 'utf8') : '');

async function build(): Promise<void> {
  const wanted = sourcesStamp();
  if (readStamp() === wanted) return;
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock older than any build is left by a process that died while building.
      const since = fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - since > 180_000) fs.rmSync(LOCK, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (readStamp() === wanted) return;
    }
  }
  try {
    if (readStamp() === wanted) return;
    await run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: ROOT });
    fs.writeFileSync(STAMP, wanted);
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

let building: Promise<void> | undefined;

/** Resolves once dist/ holds the service compiled from the current sources. */
export function compiledService(): Promise<void> {
  building ??= build();
  return building;
}
