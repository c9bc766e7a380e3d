// Receivers import the reference verifiers as `shortlink/webhooks` (package.json "exports"):
// it must load under plain Node, with no TypeScript loader, and carry types for TypeScript.
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { verifyVariantA, verifyVariantB } from 'shortlink/webhooks';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('shortlink/webhooks', () => {
  it('imports under plain node (no tsx) and verifies both variants', async () => {
    const script = `
      import { verifyVariantA, verifyVariantB } from 'shortlink/webhooks';
      import { createHmac } from 'node:crypto';
      const body = '{"event":"link.created"}';
      const t = Math.floor(Date.now() / 1000);
      const a = 't=' + t + ',v1=' + createHmac('sha256', 'secret-a').update(t + '.' + body).digest('hex');
      const b = createHmac('sha256', 'secret-b').update(body).digest('hex');
      console.log(JSON.stringify([verifyVariantA(body, a, 'secret-a'), verifyVariantB(body, b, 'secret-b'), verifyVariantB(body + ' ', b, 'secret-b')]));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' }, // no NODE_OPTIONS: no loader
    });
    expect(JSON.parse(stdout)).toEqual([true, true, false]);
  });

  it('is the same module the service is tested against, with types', () => {
    const body = Buffer.from('{"id":"evt_1"}');
    const signature: string = createHmac('sha256', 'k'.repeat(16)).update(body).digest('hex');
    const ok: boolean = verifyVariantB(body, signature, 'k'.repeat(16));
    expect(ok).toBe(true);
    expect(verifyVariantA(body, undefined, 'k')).toBe(false);
  });
});
