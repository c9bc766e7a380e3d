// Receivers import the reference verifiers as `shortlink/webhooks` (package.json "exports"):
// it must load under plain Node, with no TypeScript loader, and carry types for TypeScript. It
// answers every case of the vectors the Python and Go verifiers are held to as well
// (verifiers/vectors.json).
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  verifyVariantA,
  verifyVariantB,
  type VariantADelivery,
  type VariantAEvent,
  type VariantAEventName,
  type VariantBDelivery,
  type VariantBEvent,
  type VariantBEventName,
} from 'shortlink/webhooks';
import { eventCatalog } from '../../src/webhooks/catalog';
import { INTERFACE_EVENTS } from '../support/interface-events';
import { VECTORS_FILE, vectorsJson, type WebhookVector } from '../support/webhook-vectors';

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

  it('refuses a Variant A delivery when the tolerance is not a number, instead of accepting any age', () => {
    const secret = 'whsec_tolerance';
    const body = '{"event":"link.created"}';
    const t = 1_700_000_000;
    const header = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
    expect(verifyVariantA(body, header, secret, { now: t * 1000 })).toBe(true);
    const aYearLater = (t + 365 * 86_400) * 1000;
    expect(verifyVariantA(body, header, secret, { now: aYearLater })).toBe(false);
    for (const toleranceSeconds of [Number.NaN, Number('five minutes'), undefined as unknown as number]) {
      expect(verifyVariantA(body, header, secret, { now: aYearLater, toleranceSeconds })).toBe(false);
    }
  });

  it('is the same module the service is tested against, with types', () => {
    const body = Buffer.from('{"id":"evt_1"}');
    const signature: string = createHmac('sha256', 'k'.repeat(16)).update(body).digest('hex');
    const ok: boolean = verifyVariantB(body, signature, 'k'.repeat(16));
    expect(ok).toBe(true);
    expect(verifyVariantA(body, undefined, 'k')).toBe(false);
  });

  it('types the delivery bodies of both variants from the AsyncAPI documents, every event of the catalogue', () => {
    expectTypeOf<VariantAEventName>().toEqualTypeOf<
      | 'link.created'
      | 'link.updated'
      | 'link.deleted'
      | 'page.published'
      | 'report.shared'
      | 'conversion.created'
      | 'analytics.spike'
      | 'analytics.geo_anomaly'
      | 'domain.verified'
    >();
    expectTypeOf<VariantBEventName>().toEqualTypeOf<
      | 'link.created'
      | 'link.clicked'
      | 'link.updated'
      | 'link.deleted'
      | 'page.viewed'
      | 'page.published'
      | 'qr.scanned'
      | 'domain.verified'
    >();
    expectTypeOf<VariantAEvent<'report.shared'>['data']['visibility']>().toEqualTypeOf<'UNLISTED' | 'PUBLIC'>();
    expectTypeOf<VariantBEvent<'link.clicked'>['data']['country']>().toEqualTypeOf<string | null>();
    expectTypeOf<keyof VariantBDelivery>().toEqualTypeOf<'id' | 'type' | 'timestamp' | 'data'>();
    expectTypeOf<keyof VariantADelivery>().toEqualTypeOf<'event' | 'timestamp' | 'data'>();
    // The catalogue the service sends from has exactly these names (the types above list them).
    const a: VariantAEventName[] = [...INTERFACE_EVENTS.A];
    const b: VariantBEventName[] = [...INTERFACE_EVENTS.B];
    expect(
      eventCatalog('A')
        .events.map((e) => e.name)
        .sort(),
    ).toEqual([...a].sort());
    expect(
      eventCatalog('B')
        .events.map((e) => e.name)
        .sort(),
    ).toEqual([...b].sort());
  });
});

describe('the shared test vectors (verifiers/vectors.json)', () => {
  const cases: WebhookVector[] = JSON.parse(fs.readFileSync(VECTORS_FILE, 'utf8')).cases;

  it('are what test/support/webhook-vectors.ts writes (run it with tsx after changing a case)', () => {
    expect(fs.readFileSync(VECTORS_FILE, 'utf8')).toBe(vectorsJson());
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const body = Buffer.from(c.bodyBase64, 'base64');
    // The text form is only there to be read; it must say the same bytes.
    if (c.body !== undefined) expect(Buffer.from(c.body, 'utf8').equals(body)).toBe(true);
    const answer =
      c.variant === 'A'
        ? verifyVariantA(body, c.header, c.secret, {
            now: c.now! * 1000,
            ...(c.toleranceSeconds === undefined ? {} : { toleranceSeconds: c.toleranceSeconds }),
          })
        : verifyVariantB(body, c.header, c.secret);
    expect(answer).toBe(c.expected);
  });
});
