// Bio pages' events at a real HTTPS receiver: page.published in both variants' forms when a page
// is published from the dashboard (and again for each new version, never for a draft change,
// unpublishing or a view), and page.viewed in Variant B for each view by a person (not a crawler,
// a HEAD or a block followed), signed and valid against the AsyncAPI documents.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyVariantA, verifyVariantB } from '../../src/webhooks/verify';
import { testEngines } from '../support/databases';
import { seedTeam } from '../support/dashboard';
import { envelopeErrors } from '../support/envelopes';
import { startDeliveries, stopDeliveries, type DeliveringServer, type Receiver } from '../support/receiver';

const PERSON =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
const CRAWLER = 'Twitterbot/1.0';

describe.each(testEngines())('bio page events delivered on %s', (engine) => {
  let receiver: Receiver;
  let server: DeliveringServer;
  let team: Awaited<ReturnType<typeof seedTeam>>;

  beforeAll(async () => {
    ({ receiver, server } = await startDeliveries(engine, {
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', CLICK_FLUSH_MS: '60000' },
    }));
    team = await seedTeam(server);
  });
  afterAll(() => stopDeliveries({ receiver, server }));

  it('sends page.published to both variants for each publication, and page.viewed to Variant B for each view by a person', async () => {
    const base = `/workspaces/${team.workspaceId}`;
    const subscribe = (variant: 'A' | 'B', path: string, events: string[]) =>
      team.owner.request('POST', `${base}/webhooks/subscriptions`, {
        body: {
          variant,
          url: receiver.url(path),
          events,
          ...(variant === 'B' ? { secret: 'page-events-secret-0123' } : {}),
        },
      });
    const a = await subscribe('A', `/pages/${engine}/a`, ['page.published']);
    expect(a.status, a.text).toBe(201);
    const b = await subscribe('B', `/pages/${engine}/b`, ['page.published', 'page.viewed']);
    expect(b.status, b.text).toBe(201);

    const link = (
      await team.member.request('POST', `${base}/links`, { body: { url: 'https://example.com/from-page' } })
    ).body.data.id;
    const handle = `events-${engine}`;
    const page = (
      await team.member.request('POST', `${base}/pages`, {
        body: { handle, title: 'Acme links', blocks: [{ type: 'link', text: 'Go', linkId: link }] },
      })
    ).body.data;
    const published = await team.member.request('POST', `${base}/pages/${page.id}/publish`);
    expect(published.status).toBe(200);

    const [reqA] = await receiver.waitFor(`/pages/${engine}/a`, 1);
    expect(verifyVariantA(reqA.rawBody, reqA.headers['x-webhook-signature'] as string, a.body.secret)).toBe(true);
    expect(reqA.body).toEqual({
      event: 'page.published',
      timestamp: expect.any(String),
      data: {
        workspaceId: team.workspaceId,
        pageId: page.id,
        slug: handle,
        title: 'Acme links',
        url: `https://localhost:8443/@${handle}`,
        publishedAt: published.body.data.publishedAt,
      },
    });
    expect(await envelopeErrors('A', reqA.body)).toEqual([]);
    const [pubB] = await receiver.waitFor(`/pages/${engine}/b`, 1);
    expect(verifyVariantB(pubB.rawBody, pubB.headers['x-service-signature'] as string, 'page-events-secret-0123')).toBe(
      true,
    );
    expect(pubB.headers['x-service-event']).toBe('page.published');
    expect(pubB.body.data).toEqual({
      page_id: page.id,
      slug: handle,
      title: 'Acme links',
      url: `https://localhost:8443/@${handle}`,
      published_at: published.body.data.publishedAt,
    });
    expect(await envelopeErrors('B', pubB.body)).toEqual([]);

    // Views: two by people, one by a crawler, a HEAD, and a block followed (a click, not a view).
    const visit = (path: string, headers: Record<string, string>, method = 'GET') =>
      server.request(method, path, { headers: { 'user-agent': PERSON, ...headers } });
    await visit(`/@${handle}`, { referer: 'https://news.example.org/story', 'x-country-code': 'DE' });
    await visit(`/@${handle}`, {});
    await visit(`/@${handle}`, { 'user-agent': CRAWLER });
    await visit(`/@${handle}`, {}, 'HEAD');
    await visit(`/@${handle}/${page.blocks[0].id}`, {});
    await server.clicks.flush();
    const delivered = await receiver.waitFor(`/pages/${engine}/b`, 3);
    const views = delivered.filter((r) => r.body.type === 'page.viewed');
    expect(views).toHaveLength(2);
    for (const v of views) {
      expect(verifyVariantB(v.rawBody, v.headers['x-service-signature'] as string, 'page-events-secret-0123')).toBe(
        true,
      );
      expect(await envelopeErrors('B', v.body)).toEqual([]);
    }
    // Country only from a trusted proxy (this server trusts none), never an IP address.
    expect(views.map((v) => v.body.data)).toEqual(
      expect.arrayContaining([
        {
          page_id: page.id,
          slug: handle,
          referrer: 'news.example.org',
          country: null,
          device: 'desktop',
          browser: 'Safari',
        },
        { page_id: page.id, slug: handle, referrer: null, country: null, device: 'desktop', browser: 'Safari' },
      ]),
    );

    // A draft change and unpublishing send nothing; publishing again sends a new page.published.
    await team.member.request('PATCH', `${base}/pages/${page.id}`, { body: { title: 'Acme, again' } });
    await team.member.request('POST', `${base}/pages/${page.id}/unpublish`);
    const again = await team.member.request('POST', `${base}/pages/${page.id}/publish`);
    const [, second] = await receiver.waitFor(`/pages/${engine}/a`, 2);
    expect(second.body.data).toMatchObject({
      pageId: page.id,
      title: 'Acme, again',
      publishedAt: again.body.data.publishedAt,
    });
    expect(second.body.data.publishedAt).not.toBe(reqA.body.data.publishedAt);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.to(`/pages/${engine}/a`)).toHaveLength(2);
    expect(receiver.to(`/pages/${engine}/b`).filter((r) => r.body.type === 'page.published')).toHaveLength(2);
  });
});
