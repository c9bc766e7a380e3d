// From the API to the receiver: subscriptions made through both variants' endpoints, a link
// created through the API, and both deliveries arriving at a real HTTPS receiver in their
// variant's form: signed with the subscription's secret (the one returned by POST /api/webhooks,
// the one chosen in POST /api/v1/webhooks), valid against the AsyncAPI payload schemas, and
// Variant A carrying the API request's id as X-Service-Request-Id.
import { describe, expect, it } from 'vitest';
import { verifyVariantA, verifyVariantB } from '../../src/webhooks/verify';
import { testEngines } from '../support/databases';
import { envelopeErrors } from '../support/envelopes';
import { waitForSettled } from '../support/outbox';
import { deliveriesFor } from '../support/receiver';
import { subscribedToLinkCreated } from '../support/subscriptions';

describe.each(testEngines())('a link created through the API, delivered to both variants, on %s', (engine) => {
  const live = deliveriesFor(engine, { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' } });

  it("arrives signed, in each variant's envelope, valid against the AsyncAPI documents", async () => {
    const secretB = 'a-secret-of-our-choosing-0123';
    const {
      api,
      seeded: s,
      secretA,
      subscriptionB,
    } = await subscribedToLinkCreated(live.server, live.receiver, `/e2e/${engine}`, secretB);

    const made = await api('POST', '/api/v1/links', s.key, { url: 'https://example.com/e2e', slug: `e2e-${engine}` });
    expect(made.status).toBe(201);
    const [reqA] = await live.receiver.waitFor(`/e2e/${engine}/a`, 1);
    const [reqB] = await live.receiver.waitFor(`/e2e/${engine}/b`, 1);

    expect(verifyVariantA(reqA.rawBody, reqA.headers['x-webhook-signature'] as string, secretA)).toBe(true);
    expect(reqA.body).toMatchObject({
      event: 'link.created',
      data: { id: made.body.data.id, workspaceId: s.workspaceId, slug: `e2e-${engine}` },
    });
    expect(await envelopeErrors('A', reqA.body)).toEqual([]);
    expect(reqA.headers['x-service-request-id']).toBe(made.headers['x-service-request-id']);

    expect(verifyVariantB(reqB.rawBody, reqB.headers['x-service-signature'] as string, secretB)).toBe(true);
    expect(reqB.body).toMatchObject({
      type: 'link.created',
      data: { link_id: made.body.data.id, slug: `e2e-${engine}` },
    });
    expect(await envelopeErrors('B', reqB.body)).toEqual([]);
    expect(reqB.headers['x-service-event']).toBe('link.created');
    const row = await waitForSettled(live.server.services.db.knex, reqB.headers['x-service-delivery-id'] as string);
    expect(row).toMatchObject({ status: 'DELIVERED', subscription_id: subscriptionB });
  });
});
