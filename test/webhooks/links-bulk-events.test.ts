// POST /api/v1/links/bulk at a real HTTPS receiver: each created link raises its own link.created,
// delivered once per subscription in each variant; refused items raise nothing.
import { describe, expect, it } from 'vitest';
import { addDomain, setDomainStatus } from '../../src/db/repos/domains';
import { verifyVariantB } from '../../src/webhooks/verify';
import { testEngines } from '../support/databases';
import { envelopeErrors } from '../support/envelopes';
import { settled } from '../support/outbox';
import { deliveriesFor } from '../support/receiver';
import { subscribedToLinkCreated } from '../support/subscriptions';

describe.each(testEngines())('link.created from a bulk create, delivered on %s', (engine) => {
  const live = deliveriesFor(engine, { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' } });

  it('sends exactly one link.created per created link, none for a refused item', async () => {
    const secretB = 'a-bulk-secret-of-our-own-0123';
    const path = `/bulk/${engine}`;
    const { api, seeded, subscriptionB } = await subscribedToLinkCreated(live.server, live.receiver, path, secretB);
    const slug = `bulk-hook-${engine}`;
    const made = await api('POST', '/api/v1/links/bulk', seeded.key, {
      links: [
        { url: 'https://example.com/h1', slug },
        { url: 'https://example.com/h2' },
        { url: 'nope' },
        { url: 'https://example.com/h3', slug },
        { url: 'https://example.com/h4' },
      ],
    });
    expect(made.status).toBe(200);
    expect(made.body.data.map((r: any) => r.status)).toEqual([201, 201, 400, 409, 201]);
    const ids = made.body.data.filter((r: any) => r.status === 201).map((r: any) => r.data.id);

    const knex = live.server.services.db.knex;
    await live.receiver.waitFor(`${path}/a`, 3);
    await live.receiver.waitFor(`${path}/b`, 3);
    // Deliveries are written with their link (src/db/repos/outbox.ts): once all are settled,
    // nothing more can arrive.
    let rows: Array<{ status: string }> = [];
    for (;;) {
      rows = await knex('webhook_deliveries').where({ subscription_id: subscriptionB });
      if (rows.every(settled)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(rows).toHaveLength(3);
    const toB = live.receiver.to(`${path}/b`);
    expect(toB).toHaveLength(3);
    expect(toB.map((r) => r.body.data.link_id).sort()).toEqual([...ids].sort());
    for (const r of toB) {
      expect(r.body.type).toBe('link.created');
      expect(verifyVariantB(r.rawBody, r.headers['x-service-signature'] as string, secretB)).toBe(true);
      expect(await envelopeErrors('B', r.body)).toEqual([]);
    }
    const toA = live.receiver.to(`${path}/a`);
    expect(toA.map((r) => r.body.data.id).sort()).toEqual([...ids].sort());
  });

  it('gives each link.created its own link’s tags and host, read once for the whole call', async () => {
    const path = `/bulk-tags/${engine}`;
    const { api, seeded } = await subscribedToLinkCreated(
      live.server,
      live.receiver,
      path,
      'a-bulk-secret-of-our-own-4567',
    );
    const knex = live.server.services.db.knex;
    const host = `go-${engine}-${Date.now()}.bulk.test`;
    const domainId = await addDomain(knex, seeded.workspaceId, host);
    await setDomainStatus(knex, domainId, 'ACTIVE');
    const zeta = (await api('POST', '/api/v1/tags', seeded.key, { name: 'zeta' })).body.data.id;
    const alpha = (await api('POST', '/api/v1/tags', seeded.key, { name: 'alpha' })).body.data.id;
    const made = await api('POST', '/api/v1/links/bulk', seeded.key, {
      links: [
        { url: 'https://example.com/t1', slug: `t1-${engine}`, tagIds: [zeta, alpha] },
        { url: 'https://example.com/t2', slug: `t2-${engine}`, domainId },
        { url: 'https://example.com/t3', slug: `t3-${engine}`, tagIds: [zeta], domainId },
      ],
    });
    expect(made.body.data.map((r: any) => r.status)).toEqual([201, 201, 201]);
    await live.receiver.waitFor(`${path}/b`, 3);
    const seen = Object.fromEntries(
      live.receiver.to(`${path}/b`).map((r) => [r.body.data.short_url, [r.body.data.domain, r.body.data.tags]]),
    );
    expect(seen).toEqual({
      [`https://${live.server.services.config.shortDomain}/t1-${engine}`]: [
        live.server.services.config.shortDomain,
        ['alpha', 'zeta'],
      ],
      [`https://${host}/t2-${engine}`]: [host, []],
      [`https://${host}/t3-${engine}`]: [host, ['zeta']],
    });
  });
});
