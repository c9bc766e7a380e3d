// The import rules of .dependency-cruiser.cjs (docs/architecture.md, Layers), which CI runs as
// `npm run lint:deps`: they hold for the project, and they catch each kind of violation.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const run = promisify(execFile);

async function violations(cwd: string): Promise<Array<{ rule: string; from: string; to: string }>> {
  const { stdout } = await run(
    path.join(ROOT, 'node_modules/.bin/depcruise'),
    ['src', '--config', CONFIG, '--output-type', 'json'],
    { cwd, maxBuffer: 64 * 2 ** 20 },
  ).catch((e) => e);
  const report = JSON.parse(stdout);
  return report.summary.violations.map((v: any) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe('import directions', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-deps-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('hold for the project', async () => {
    expect(await violations(ROOT)).toEqual([]);
  }, 60_000);

  it('refuse an import upward or sideways, a cycle, a driver outside src/db/, a command via src/http/, the app reaching the service', async () => {
    const files: Record<string, string> = {
      'src/domain/rules.ts': "import { row } from '../db/rows';\nexport const rule = row;\n",
      'src/db/rows.ts': 'export const row = 1;\n',
      'src/db/cycle-a.ts': "import { b } from './cycle-b';\nexport const a = b;\n",
      'src/db/cycle-b.ts': "import { a } from './cycle-a';\nexport const b = () => a;\n",
      'src/clicks/writer.ts': "import { sink } from '../webhooks/sink';\nexport const writer = sink;\n",
      'src/webhooks/sink.ts': 'export const sink = 1;\n',
      'src/http/handler.ts': "import knex from 'knex';\nexport const k = knex;\n",
      'src/redirect/path.ts': "import { handler } from '../http/handler';\nexport const p = handler;\n",
      'src/redirect/uses-operation.ts': "import { links } from '../operations/links';\nexport const u = links;\n",
      'src/operations/links.ts': "import { handler } from '../http/handler';\nexport const links = handler;\n",
      'src/operations/pages.ts':
        "import { sink } from '../webhooks/sink';\nimport { row } from '../db/rows';\nexport const pages = [sink, row];\n",
      'src/http/uses-operation.ts': "import { pages } from '../operations/pages';\nexport const h = pages;\n",
      'src/start/server.ts': "import { h } from '../http/uses-operation';\nexport const s = h;\n",
      'src/start/cli.ts':
        "import { s } from './server';\nimport { h } from '../http/uses-operation';\nexport const c = [s, h];\n",
      'src/start/commands/links.ts':
        "import { links } from '../../operations/links';\nimport { h } from '../../http/uses-operation';\nexport const l = [links, h];\n",
      'src/db/migrations/20260101000000_x.ts':
        "import { rule } from '../../domain/rules';\nexport const WIDTH = rule;\n",
      'src/db/repos/uses-migration.ts':
        "import { WIDTH } from '../migrations/20260101000000_x';\nexport const w = WIDTH;\n",
      'src/domain/csv.ts': 'export const csvRecords = 1;\n',
      'src/web/lib/csv.ts':
        "export { csvRecords } from '../../domain/csv';\nexport { rule } from '../../domain/rules';\n",
      'src/web/lib/screen.ts': "import { csvRecords } from '../../domain/csv';\nexport const s = csvRecords;\n",
      'src/web/api/client.ts': 'export const api = 1;\n',
      'src/web/api/links.ts': "import { api } from './client';\nexport const useLinks = api;\n",
      'src/web/screens/links.tsx':
        "import { api } from '../api/client';\nimport { useLinks } from '../api/links';\nexport const s = [api, useLinks];\n",
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(tmp, file)), { recursive: true });
      fs.writeFileSync(path.join(tmp, file), text);
    }
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(tmp, 'node_modules'));
    fs.writeFileSync(
      path.join(tmp, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true } }),
    );
    const found = await violations(tmp);
    const rules = (from: string) => found.filter((v) => v.from === from).map((v) => v.rule);
    expect(rules('src/domain/rules.ts')).toContain('domain-imports-only-below');
    expect(rules('src/clicks/writer.ts')).toContain('clicks-imports-only-below');
    expect(rules('src/redirect/path.ts')).toContain('redirect-imports-only-below');
    // The operations sit between the APIs (and the command line) and the layers below them.
    expect(rules('src/redirect/uses-operation.ts')).toContain('redirect-imports-only-below');
    expect(rules('src/operations/links.ts')).toContain('operations-imports-only-below');
    expect(rules('src/operations/pages.ts')).toEqual([]);
    expect(rules('src/http/uses-operation.ts')).toEqual([]);
    // serve loads the HTTP layer; the command line and its commands reach only the operations.
    expect(rules('src/start/server.ts')).toEqual([]);
    expect(found.filter((v) => v.from === 'src/start/cli.ts')).toEqual([
      expect.objectContaining({ rule: 'cli-not-through-http', to: 'src/http/uses-operation.ts' }),
    ]);
    expect(found.filter((v) => v.from === 'src/start/commands/links.ts')).toEqual([
      expect.objectContaining({ rule: 'cli-not-through-http', to: 'src/http/uses-operation.ts' }),
    ]);
    expect(rules('src/http/handler.ts')).toContain('drivers-only-in-db');
    expect(found.some((v) => v.rule === 'no-cycles' && v.from.startsWith('src/db/cycle-'))).toBe(true);
    expect(rules('src/db/migrations/20260101000000_x.ts')).toContain('migrations-are-frozen');
    expect(rules('src/db/repos/uses-migration.ts')).toContain('nothing-imports-a-migration');
    // The dashboard reaches the service's code only for the CSV writer, and only through lib/csv.ts.
    expect(found.filter((v) => v.from === 'src/web/lib/csv.ts')).toEqual([
      expect.objectContaining({ rule: 'web-csv-imports-only-the-writer', to: 'src/domain/rules.ts' }),
    ]);
    expect(rules('src/web/lib/screen.ts')).toContain('web-imports-only-web-and-generated');
    // Screens reach the fetch client only through the per-resource hook modules.
    expect(found.filter((v) => v.from === 'src/web/screens/links.tsx')).toEqual([
      expect.objectContaining({ rule: 'web-screens-not-client', to: 'src/web/api/client.ts' }),
    ]);
    expect(rules('src/web/api/links.ts')).toEqual([]);
  }, 60_000);
});
