// Settings › Webhooks, end to end in Debian's Chromium against the service and a real HTTPS
// receiver on loopback: both variants' subscriptions made on the screen (Variant A's secret shown
// once), "Send test event" and what came back, a failing Variant B delivery in the log with its
// response body, replayed; an UNKNOWN Variant A delivery marked delivered; a subscription the
// endpoint health rule disabled shown with its reason and re-enabled; an ANALYST who sees it all
// with no control (the API answers 403 when asked anyway). axe-core on every screen, screenshots
// in DASHBOARD_E2E_SHOTS_DIR (default /tmp/dashboard-e2e). SQLite only: the rules run on both
// engines in test/dashboard/webhooks.test.ts and test/webhooks/delivery-log.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeInChromium } from '../support/browser';
import { DASHBOARD_API, type Person } from '../support/dashboard';
import { acmeInChromium, type DashboardBrowser } from '../support/dashboard-browser';
import { deliveryRow, seedDelivery, waitForSettled } from '../support/outbox';
import { startDeliveries, stopDeliveries, type DeliveringServer, type Receiver } from '../support/receiver';
import { newId } from '../../src/domain/ids';

describeInChromium('webhooks in the dashboard, in Chromium (sqlite)', () => {
  let server: DeliveringServer;
  let receiver: Receiver;
  let browser: Browser;
  let b: DashboardBrowser;
  let workspaceId: string;
  let owner: Person;
  let analyst: Person;
  let page: Page;
  let screenUrl: string;
  const knex = () => server.services.db.knex;
  const h1 = (p: Page) => p.getByRole('heading', { level: 1 });
  /** A subscription's row (the log's rows name the endpoint too). */
  const subscriptionRow = (p: Page, name: RegExp) =>
    p.getByRole('region', { name: 'Webhook subscriptions' }).getByRole('row', { name });
  const subscriptionOf = async (variant: 'A' | 'B') =>
    knex()('webhook_subscriptions').where({ workspace_id: workspaceId, variant }).first();

  beforeAll(async () => {
    ({ receiver, server } = await startDeliveries('sqlite', {
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1', WEBHOOK_RETRY_SCALE: '0.01', WEBHOOK_TIMEOUT_MS: '2000' },
    }));
    ({ browser, b, workspaceId, owner, analyst } = await acmeInChromium(server));
    page = await b.signedInPage(owner);
    screenUrl = `${server.url}/app/w/${workspaceId}/settings/webhooks`;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stopDeliveries({ receiver, server });
  });

  it("makes a Variant A subscription (its secret shown once) and a Variant B one (the caller's secret)", async () => {
    await page.goto(`${server.url}/app/w/${workspaceId}/settings`);
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => h1(page).textContent()).toBe('Webhooks');
    await page.getByText('No webhook subscriptions yet').waitFor();
    await b.look(page, 'webhooks-empty');

    const form = page.getByRole('region', { name: 'New subscription' });
    await form.getByLabel('Variant', { exact: true }).selectOption('A');
    await form.getByLabel('Endpoint URL').fill(receiver.url('/hooks/a'));
    await form.getByLabel('link.created').check();
    await form.getByRole('button', { name: 'Create subscription' }).click();
    const secret = form.getByRole('textbox', { name: 'Signing secret' });
    await expect.poll(() => secret.inputValue()).toMatch(/^whsec_[0-9a-f]{64}$/);
    await form.getByRole('button', { name: 'Copy secret' }).waitFor();
    await b.look(page, 'webhooks-secret-once');
    await form.getByRole('button', { name: 'Done' }).click();
    expect(await form.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0);

    receiver.reply('/hooks/b', [{ status: 500, body: 'receiver says no' }]);
    await form.getByLabel('Variant', { exact: true }).selectOption('B');
    await form.getByLabel('Endpoint URL').fill(receiver.url('/hooks/b'));
    await form.getByLabel('link.created').check();
    // A secret too short: refused before sending, next to the field.
    await form.getByLabel('Secret', { exact: true }).fill('short');
    await form.getByRole('button', { name: 'Create subscription' }).click();
    await expect.poll(() => form.getByLabel('Secret', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('Secret', { exact: true }).fill('a caller chosen secret');
    await form.getByRole('button', { name: 'Create subscription' }).click();
    await page.getByText(/created \(Variant B\)/).waitFor();
    expect(await form.getByRole('textbox', { name: 'Signing secret' }).count()).toBe(0);
    await subscriptionRow(page, /hooks\/a/).waitFor();
    await subscriptionRow(page, /hooks\/b/).waitFor();
    await b.look(page, 'webhooks-subscriptions');
  });

  it('"Send test event" shows what came back, and the log marks it as a test', async () => {
    receiver.reply('/hooks/a', [{ status: 200, body: '{"received":true}' }]);
    await page.getByRole('button', { name: `Send test event to ${receiver.url('/hooks/a')}` }).click();
    const panel = page.getByRole('region', { name: /Send test event to/ });
    await panel.getByLabel('Event').selectOption('link.created');
    await panel.getByRole('button', { name: 'Send test event' }).click();
    const result = page.getByRole('region', { name: 'Test event result' });
    await result.getByText('Delivered: the endpoint answered 200.').waitFor();
    await expect
      .poll(() =>
        result
          .getByRole('region', { name: 'Response body of attempt 1' })
          .or(result.getByLabel('Response body of attempt 1'))
          .first()
          .textContent(),
      )
      .toContain('"received": true');
    const [req] = receiver.to('/hooks/a');
    // The sample names the documented example's workspace, never this one.
    expect(req.body.data.workspaceId).toBe('ws_91c3e7a2');
    expect(req.headers['x-service-test']).toBe('true');
    await page.getByRole('row', { name: /link\.created.*Test/ }).waitFor();
    await b.look(page, 'webhooks-test-event');
  });

  it('a failing Variant B delivery shows in the log with its response body, and is replayed', async () => {
    const sub = await subscriptionOf('B');
    const id = await seedDelivery(knex(), { id: sub.id, workspaceId, variant: 'B', secret: '' });
    await waitForSettled(knex(), id, 30_000);
    receiver.reply('/hooks/b', [{ status: 200, body: 'ok now' }]);
    await page.reload();
    await page.getByRole('group', { name: 'Filter deliveries' }).getByLabel('Status').selectOption('FAILED');
    const row = page.getByRole('row', { name: /FAILED.*6/ });
    await row.waitFor();
    await page.getByRole('button', { name: `Attempts of delivery ${id}` }).click();
    const attempts = page.getByRole('region', { name: `Attempts of delivery ${id}` });
    await expect.poll(() => attempts.getByLabel('Response body of attempt 6').textContent()).toBe('receiver says no');
    await b.look(page, 'webhooks-log-failed');
    await page.getByRole('button', { name: `Replay delivery ${id}` }).click();
    await page.getByText(`Delivery ${id} sent again with the same id and body.`).waitFor();
    expect(await waitForSettled(knex(), id)).toMatchObject({ status: 'DELIVERED', attempts: 7 });
  });

  it('an UNKNOWN Variant A delivery is marked delivered', async () => {
    const sub = await subscriptionOf('A');
    const row = {
      ...deliveryRow({ id: sub.id, workspaceId, variant: 'A', secret: '' }),
      id: newId('dlv'),
      status: 'UNKNOWN',
      attempts: 1,
      last_error: 'no answer within 10000 ms after the request was sent',
    };
    await knex()('webhook_deliveries').insert(row);
    await page.reload();
    await page.getByRole('group', { name: 'Filter deliveries' }).getByLabel('Status').selectOption('UNKNOWN');
    await page.getByRole('button', { name: `Mark delivered: delivery ${row.id}` }).waitFor();
    await b.look(page, 'webhooks-log-unknown');
    await page.getByRole('button', { name: `Mark delivered: delivery ${row.id}` }).click();
    await page.getByText(`Delivery ${row.id} marked delivered.`).waitFor();
    expect((await knex()('webhook_deliveries').where({ id: row.id }).first()).status).toBe('DELIVERED');
  });

  it('shows why Shortlink disabled an endpoint, and re-enables it', async () => {
    const sub = await subscriptionOf('B');
    const reason =
      'Every delivery attempt since 2026-01-01T00:00:00.000Z failed (the last: HTTP 500); subscriptions whose deliveries all fail for 5 days are disabled.';
    await knex()('webhook_subscriptions')
      .where({ id: sub.id })
      .update({
        enabled: false,
        disabled_at: Date.now(),
        disabled_reason: reason,
        failing_since: Date.now() - 6 * 86_400_000,
      });
    await page.reload();
    const row = subscriptionRow(page, /hooks\/b/);
    await row.getByText('Disabled by Shortlink').waitFor();
    await row.getByText(reason, { exact: false }).waitFor();
    await b.look(page, 'webhooks-disabled');
    await page.getByRole('button', { name: `Re-enable ${receiver.url('/hooks/b')}` }).click();
    await page.getByText(/enabled again/).waitFor();
    await expect.poll(() => row.getByText('Enabled', { exact: true }).count()).toBe(1);
    expect(await subscriptionOf('B')).toMatchObject({ disabled_reason: null, disabled_at: null });
  });

  it('an ANALYST sees subscriptions, the log and the catalogue with no control; the API answers 403 when asked anyway', async () => {
    const { page: p } = await b.newPersonPage();
    await b.signInThroughForm(p, analyst);
    await expect.poll(() => h1(p).textContent()).toBe('Links');
    await p.goto(screenUrl);
    await expect.poll(() => h1(p).textContent()).toBe('Webhooks');
    await subscriptionRow(p, /hooks\/a/).waitFor();
    await p.getByRole('heading', { name: 'Delivery log' }).waitFor();
    await p.getByRole('heading', { name: 'Event catalogue' }).waitFor();
    for (const name of [
      'Create subscription',
      /^Send test event/,
      /^Edit /,
      /^Re-enable/,
      /^Delete subscription/,
      /^Replay/,
      /^Mark /,
    ]) {
      expect(await p.getByRole('button', { name }).count(), String(name)).toBe(0);
    }
    await b.look(p, 'webhooks-analyst');
    const sub = await subscriptionOf('A');
    const base = `${DASHBOARD_API}/workspaces/${workspaceId}/webhooks`;
    const tested = await b.apiFromPage(p, 'POST', `${base}/subscriptions/${sub.id}/test`, { event: 'link.created' });
    expect(tested.status).toBe(403);
    expect(tested.body?.error).toMatch(/ANALYST/);
    expect(b.errors).toEqual([]);
  });
});
