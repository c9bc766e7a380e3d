// From the API to the receiver: subscriptions made through both variants' endpoints, a link
// created through the API, and both deliveries arriving at a real HTTPS receiver in their
// variant's form: signed with the subscription's secret (the one returned by POST /api/webhooks,
// the one chosen in POST /api/v1/webhooks), valid against the AsyncAPI payload schemas, and
// Variant A carrying the API request's id as X-Service-Request-Id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyVariantA, verifyVariantB } from '../../src/webhooks/verify';
import { testEngines } from '../support/databases';
import { envelopeErrors } from '../support/envelopes';
import { waitForSettled } from '../support/outbox';
import { startDeliveries, stopDeliveries, type DeliveringServer, type Receiver } from '../support/receiver';
import { seedWorkspace } from '../support/seed';
import { httpsRequest, testCertificate } from '../support/server';

describe.each(testEngines())('a link created through the API, delivered to both variants, on %s', (engine) => {
  let receiver: Receiver;
  let server: DeliveringServer;
  let ca: string;

  beforeAll(async () => {
    ({ receiver, server } = await startDeliveries(engine, { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' } }));
    ca = (await testCertificate()).cert;
  });
  afterAll(() => stopDeliveries({ receiver, server }));

  it("arrives signed, in each variant's envelope, valid against the AsyncAPI documents", async () => {
    const api = (method: string, path: string, key: string, body?: unknown) =>
      httpsRequest(server.url, ca, method, path, { key, body });
    const s = await seedWorkspace(server.services.db.knex, {
      scopes: ['links:read', 'links:write', 'webhooks:read', 'webhooks:write'],
    });
    const a = await api('POST', '/api/webhooks', s.key, {
      workspaceId: s.workspaceId,
      url: receiver.url(`/e2e/${engine}/a`),
      events: ['link.created'],
    });
    expect(a.status).toBe(201);
    const secretB = 'a-secret-of-our-choosing-0123';
    const b = await api('POST', '/api/v1/webhooks', s.key, {
      url: receiver.url(`/e2e/${engine}/b`),
      events: ['link.created'],
      secret: secretB,
    });
    expect(b.status).toBe(201);

    const made = await api('POST', '/api/v1/links', s.key, { url: 'https://example.com/e2e', slug: `e2e-${engine}` });
    expect(made.status).toBe(201);
    const [reqA] = await receiver.waitFor(`/e2e/${engine}/a`, 1);
    const [reqB] = await receiver.waitFor(`/e2e/${engine}/b`, 1);

    expect(verifyVariantA(reqA.rawBody, reqA.headers['x-webhook-signature'] as string, a.body.data.secret)).toBe(true);
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
    const row = await waitForSettled(server.services.db.knex, reqB.headers['x-service-delivery-id'] as string);
    expect(row).toMatchObject({ status: 'DELIVERED', subscription_id: b.body.id });
  });
});
