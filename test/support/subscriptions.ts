// Request bodies that subscribe a workspace to webhooks, valid as they are: Variant A's
// (POST /api/webhooks) and Variant B's (POST /api/v1/webhooks), with a case's `extra` fields on top;
// and a workspace subscribed in both variants through the API.
import { expect } from 'vitest';
import type { Receiver } from './receiver';
import { seedWorkspace } from './seed';
import { httpsRequest, testCertificate, type TestServer } from './server';

/** The secret Variant B's subscriptions choose themselves. */
export const SECRET_B = 'a-caller-chosen-secret';

export const subscriptionBodyA = (workspaceId: string, extra: object = {}) => ({
  workspaceId,
  url: 'https://hooks.example.com/a',
  events: ['link.created'],
  ...extra,
});

export const subscriptionBodyB = (extra: object = {}) => ({
  url: 'https://hooks.example.com/b',
  events: ['link.clicked'],
  secret: SECRET_B,
  ...extra,
});

/**
 * A new workspace whose key may write links and webhooks, subscribed to link.created through the
 * API in both variants: Variant A at the receiver's `${path}/a` (its secret made by the service),
 * Variant B at `${path}/b` with `secretB`. `api` calls the server as that key's holder would.
 */
export async function subscribedToLinkCreated(server: TestServer, receiver: Receiver, path: string, secretB: string) {
  const ca = (await testCertificate()).cert;
  const api = (method: string, pathname: string, key: string, body?: unknown) =>
    httpsRequest(server.url, ca, method, pathname, { key, body });
  const seeded = await seedWorkspace(server.services.db.knex, {
    scopes: ['links:read', 'links:write', 'webhooks:read', 'webhooks:write'],
  });
  const a = await api('POST', '/api/webhooks', seeded.key, {
    workspaceId: seeded.workspaceId,
    url: receiver.url(`${path}/a`),
    events: ['link.created'],
  });
  expect(a.status).toBe(201);
  const b = await api('POST', '/api/v1/webhooks', seeded.key, {
    url: receiver.url(`${path}/b`),
    events: ['link.created'],
    secret: secretB,
  });
  expect(b.status).toBe(201);
  return { api, seeded, secretA: a.body.data.secret as string, subscriptionB: b.body.id as string };
}
