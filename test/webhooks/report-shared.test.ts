// report.shared from the dashboard to a real HTTPS receiver, on every engine: a Variant A
// subscription made through POST /api/webhooks, reports changed through the dashboard API, and
// exactly the changes that share a report further arriving, signed with the subscription's
// secret, with exactly the four data fields of the interface, valid against the AsyncAPI
// document, carrying the dashboard request's id: a report made PUBLIC, PRIVATE → UNLISTED,
// UNLISTED → PUBLIC, and PRIVATE → PUBLIC after being made private again; never PUBLIC →
// UNLISTED, back to PRIVATE, a new title, password, window or link.
import { describe, expect, it } from 'vitest';
import { createKey } from '../../src/db/repos/api-keys';
import { verifyVariantA } from '../../src/webhooks/verify';
import { testEngines } from '../support/databases';
import { seedTeam } from '../support/dashboard';
import { envelopeErrors } from '../support/envelopes';
import { deliveriesFor } from '../support/receiver';
import type { TestServer } from '../support/server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(testEngines())('report.shared to a Variant A receiver, on %s', (engine) => {
  const live = deliveriesFor(engine, { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1' } });

  it('arrives signed, with exactly its four fields, for each change that shares a report further, and for no other', async () => {
    const knex = live.server.services.db.knex;
    const team = await seedTeam(live.server as unknown as TestServer);
    const base = `/workspaces/${team.workspaceId}`;
    const key = (await createKey(knex, team.workspaceId, team.people.owner.userId, ['webhooks:write'], null)).key;
    const path = `/reports/${engine}`;
    const sub = await (live.server as unknown as TestServer).request('POST', '/api/webhooks', {
      key,
      body: { workspaceId: team.workspaceId, url: live.receiver.url(path), events: ['report.shared'] },
    });
    expect(sub.status).toBe(201);
    const secret = sub.body.data.secret as string;
    live.receiver.reply(path, [{ status: 204 }]);

    const made = await team.member.request('POST', `${base}/reports`, {
      body: { kind: 'CONVERSIONS', title: 'Q1 results', params: { window: { lastDays: 90 } } },
    });
    expect(made.status).toBe(201);
    const id = made.body.data.id;
    const change = async (body: Record<string, unknown>) => {
      const res = await team.member.request('PATCH', `${base}/reports/${id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(200);
      return res.headers['x-service-request-id'] as string;
    };
    // Each expected event is waited for before the next change, so the order is the order of the changes.
    const expectEvent = async (n: number, visibility: string, title: string, requestId: string, reportId = id) => {
      const got = await live.receiver.waitFor(path, n);
      const req = got[n - 1];
      expect(verifyVariantA(req.rawBody, req.headers['x-webhook-signature'] as string, secret)).toBe(true);
      expect(req.body.event).toBe('report.shared');
      expect(Object.keys(req.body.data).sort()).toEqual(['reportId', 'title', 'visibility', 'workspaceId']);
      expect(req.body.data).toEqual({ workspaceId: team.workspaceId, reportId, title, visibility });
      expect(await envelopeErrors('A', req.body)).toEqual([]);
      expect(req.headers['x-service-request-id']).toBe(requestId);
    };

    await expectEvent(1, 'UNLISTED', 'Q1 results', await change({ visibility: 'UNLISTED' }));
    await change({ title: 'Q1 results, final' });
    await change({ password: 'a password' });
    await change({ params: { window: { lastDays: 30 } } });
    expect((await team.member.request('POST', `${base}/reports/${id}/token`)).status).toBe(200);
    await expectEvent(2, 'PUBLIC', 'Q1 results, final', await change({ visibility: 'PUBLIC' }));
    await change({ visibility: 'UNLISTED' });
    await change({ visibility: 'PRIVATE' });
    await expectEvent(3, 'PUBLIC', 'Q1 results, final', await change({ visibility: 'PUBLIC' }));
    const born = await team.member.request('POST', `${base}/reports`, {
      body: { kind: 'CONVERSIONS', title: 'Born shared', visibility: 'UNLISTED', params: { window: { lastDays: 7 } } },
    });
    await expectEvent(4, 'UNLISTED', 'Born shared', born.headers['x-service-request-id'] as string, born.body.data.id);
    // A PRIVATE report made and deleted raises nothing either.
    const quiet = (
      await team.member.request('POST', `${base}/reports`, {
        body: { kind: 'CONVERSIONS', title: 'Quiet', params: { window: { lastDays: 7 } } },
      })
    ).body.data.id;
    expect((await team.member.request('DELETE', `${base}/reports/${quiet}`)).status).toBe(204);

    // Nothing else arrives, and the outbox holds exactly these four.
    await sleep(1_500);
    expect(live.receiver.to(path)).toHaveLength(4);
    const rows = await knex('webhook_deliveries').where({
      workspace_id: team.workspaceId,
      event_type: 'report.shared',
    });
    expect(rows).toHaveLength(4);
  });
});
