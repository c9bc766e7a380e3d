// A fuzzer driven by the dashboard's contract (generated/dashboard.json), on every engine, as the
// public API's fuzzer is driven by its own: for every operation fast-check generates requests
// from the parameter and body schemas (naming objects that exist in the person's workspace, in
// another workspace, or nowhere), sent by people of every role, with and without the session and
// the anti-forgery token, with malformed, mistyped and oversized bodies; over real HTTPS with
// several in flight. It asserts:
//   - no 5xx and no broken connection; every status documented for its operation;
//   - every error exactly `{ error, field?, code? }`; every 2xx body valid against its schema;
//   - no session: 401; no token on a change: 403; an ANALYST's change: 403; another workspace in
//     the path: 404; another workspace's object: never a 2xx that shows or changes it;
//   - no answer shows another workspace's ids (its links, campaigns and QR codes have conversions,
//     so the Conversions read has some to show); afterwards the other workspace's links, tags,
//     domains, keys, members, invitations, campaigns, goals, conversions, webhooks, bio pages and reports are exactly as they were;
//   - a shared report's public read (no session) answers 2xx only for a token that opens a
//     report now: the "theirs" tokens are the other workspace's PRIVATE report's, a token a new
//     one replaced and a deleted report's, which must answer 404.
// FUZZ_SEED reproduces a run; DASHBOARD_FUZZ_REQUESTS sets the number of requests per engine.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/db/repos/workspaces';
import { createKey } from '../../src/db/repos/api-keys';
import { testEngines } from '../support/databases';
import { DASHBOARD_API, seedTeam, signIn, type DashboardClient } from '../support/dashboard';
import { FuzzClient, type RawRequest, type RawResponse } from '../support/fuzz-client';
import { arbFor, text, UNICODE_TORTURE, wrongTypeValues } from '../support/fuzz-gen';
import { openDocument, type Operation } from '../support/fuzz-openapi';
import { softAuthenticator } from '../support/passkeys';
import { startTestServer, type TestServer } from '../support/server';
import { startSmtp, type TestSmtp } from '../support/smtp';

const REQUESTS = Number(process.env.DASHBOARD_FUZZ_REQUESTS ?? 1500);
const IN_FLIGHT = 8;
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const dashboard = openDocument('dashboard.json');
const UNSAFE = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
// Ending sessions would leave the rest of the run signed out: these are the session tests' work.
const SKIPPED = new Set(['signOut', 'changePassword', 'endOtherSessions']);
const OPS = dashboard.operations().filter((o) => !SKIPPED.has(o.operationId));
const ROLES = ['owner', 'admin', 'member', 'analyst'] as const;
type Who = (typeof ROLES)[number];

/** Ids of one workspace's objects, by the path or query parameter that names them. */
type Pools = Record<
  | 'linkId'
  | 'keyId'
  | 'userId'
  | 'invitationId'
  | 'domainId'
  | 'tagId'
  | 'goalId'
  | 'subscriptionId'
  | 'deliveryId'
  | 'campaignId'
  | 'qrCodeId'
  | 'pageId'
  | 'reportId'
  | 'sessionId'
  | 'passkeyId'
  | 'token',
  string[]
>;
/** Query parameters that name an object: sent with one of the pools' ids (the links list's filters, the conversion filters). */
const QUERY_IDS = new Set<string>(['tagId', 'domainId', 'linkId', 'campaignId', 'qrCodeId']);

interface Plan {
  op: Operation;
  who: Who;
  /** 'mine' | 'theirs' | 'nowhere' for the workspace and for each object id in the path. */
  workspace: 'mine' | 'theirs' | 'nowhere';
  objects: 'mine' | 'theirs' | 'nowhere';
  auth: 'ok' | 'no-session' | 'no-token' | 'other-origin';
  body: 'valid' | 'wrong-type' | 'extra' | 'malformed' | 'none' | 'torture';
  seed: number;
}

const planArb: fc.Arbitrary<Plan> = fc.record({
  op: fc.constantFrom(...OPS),
  who: fc.constantFrom(...ROLES),
  workspace: fc.constantFrom('mine', 'mine', 'mine', 'mine', 'mine', 'mine', 'theirs', 'nowhere'),
  objects: fc.constantFrom('mine', 'mine', 'mine', 'mine', 'theirs', 'theirs', 'nowhere'),
  auth: fc.constantFrom('ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'no-session', 'no-token', 'other-origin'),
  body: fc.constantFrom('valid', 'valid', 'valid', 'valid', 'wrong-type', 'extra', 'malformed', 'none', 'torture'),
  seed: fc.nat(),
}) as fc.Arbitrary<Plan>;

describe.each(testEngines())('dashboard API fuzz on %s', (engine) => {
  let server: TestServer;
  let client: FuzzClient;
  let smtp: TestSmtp;
  let mine: Awaited<ReturnType<typeof seedTeam>>;
  let theirs: Awaited<ReturnType<typeof seedTeam>>;
  const pools: { mine: Pools; theirs: Pools } = {} as never;
  const knex = () => server.services.db.knex;

  async function seedObjects(team: Awaited<ReturnType<typeof seedTeam>>, tag: string): Promise<Pools> {
    const base = `/workspaces/${team.workspaceId}`;
    const tagIds = [];
    for (const name of ['red', 'blue'])
      tagIds.push(
        (await team.owner.request('POST', `${base}/tags`, { body: { name: `${tag}-${name}` } })).body.data.id,
      );
    const linkIds = [];
    for (let i = 0; i < 6; i++) {
      const res = await team.owner.request('POST', `${base}/links`, {
        body: { url: `https://example.com/${tag}/${i}`, slug: `fz-${tag}-${i}`, tagIds: [tagIds[i % 2]] },
      });
      linkIds.push(res.body.data.id);
    }
    const domainIds = [
      (await team.owner.request('POST', `${base}/domains`, { body: { host: `${tag}-${Date.now()}.example.com` } })).body
        .data.id,
    ];
    const keyIds = [
      (await team.owner.request('POST', `${base}/keys`, { body: { scopes: ['links:read'] } })).body.data.id,
    ];
    const campaignIds = [
      (await team.owner.request('POST', `${base}/campaigns`, { body: { name: `${tag} campaign` } })).body.data.id,
    ];
    const qrCodeIds = [(await team.owner.request('POST', `${base}/links/${linkIds[0]}/qr`)).body.data.id];
    const goalIds = [];
    for (const type of ['purchase', 'custom'])
      goalIds.push(
        (await team.owner.request('POST', `${base}/goals`, { body: { name: `${tag} ${type}`, type, targetCount: 10 } }))
          .body.data.id,
      );
    // Conversions naming the links, the campaign and the QR code, so the Conversions read has ids to show (or leak).
    const key = (await createKey(knex(), team.workspaceId, team.people.owner.userId, ['conversions:write'], null)).key;
    const conversions = [
      {
        eventType: 'purchase',
        linkId: linkIds[1],
        campaignId: campaignIds[0],
        value: { amountMinor: 1250, currency: 'EUR' },
      },
      { eventType: 'signup', qrCodeId: qrCodeIds[0] },
      { eventType: 'custom', customName: 'webinar', campaignId: campaignIds[0] },
      { eventType: 'lead' },
    ];
    for (const body of conversions)
      expect((await server.request('POST', '/api/v1/conversions', { key, body })).status).toBe(201);
    // The key's last use is written a second later (src/http/key-uses.ts): write it now, so the
    // snapshot taken before the fuzzing does not see it change.
    await server.services.keyUses.flush();
    // People the fuzzer may change or remove: never the signed-in ones.
    const userIds = [];
    for (let i = 0; i < 3; i++)
      userIds.push(await addMember(knex(), team.workspaceId, `${tag}-extra${i}-${Date.now()}@example.com`, 'MEMBER'));
    // Invitations the fuzzer may revoke (and whose tokens it never sees).
    const invitationIds = [];
    for (let i = 0; i < 2; i++) {
      const invited = await team.owner.request('POST', `${base}/invitations`, {
        body: { email: `${tag}-invited${i}-${Date.now()}@example.com`, role: 'MEMBER' },
      });
      invitationIds.push(invited.body.data.id);
    }
    // A webhook subscription to a loopback address this server refuses (its worker is off, and a
    // test event is refused before anything is sent), and one FAILED delivery to replay.
    const subscriptionIds = [
      (
        await team.owner.request('POST', `${base}/webhooks/subscriptions`, {
          body: {
            variant: 'B',
            url: 'https://127.0.0.1:9/fuzz',
            events: ['link.created'],
            secret: 'fuzz secret sixteen+',
          },
        })
      ).body.data.id,
    ];
    const deliveryIds = [`dlv_fz${tag}`];
    await knex()('webhook_deliveries').insert({
      id: deliveryIds[0],
      subscription_id: subscriptionIds[0],
      workspace_id: team.workspaceId,
      variant: 'B',
      event_id: `evt_fz${tag}`,
      event_type: 'link.created',
      occurred_at: Date.now(),
      data: '{}',
      status: 'FAILED',
      attempts: 6,
      next_attempt_at: Date.now(),
      created_at: Date.now(),
      updated_at: Date.now(),
    });
    // Bio pages, one published with a link block, one a draft.
    const pageIds = [];
    for (const [i, publish] of [
      [0, true],
      [1, false],
    ] as const) {
      const page = (
        await team.owner.request('POST', `${base}/pages`, {
          body: {
            handle: `fz-${tag}-${i}`,
            title: `${tag} page`,
            blocks: [{ type: 'link', text: 'Go', linkId: linkIds[i] }],
          },
        })
      ).body.data;
      if (publish) await team.owner.request('POST', `${base}/pages/${page.id}/publish`);
      pageIds.push(page.id);
    }
    // Reports of every kind and visibility. `token` of this workspace: tokens that open a report
    // (UNLISTED, PUBLIC, one with a password); of the other: tokens that must open nothing (a
    // PRIVATE report's, one replaced by a new link, a deleted report's).
    const report = async (body: Record<string, unknown>) =>
      (await team.owner.request('POST', `${base}/reports`, { body: { title: `${tag} report`, ...body } })).body.data;
    const reports = [
      await report({
        kind: 'CONVERSIONS',
        visibility: 'UNLISTED',
        params: { window: { lastDays: 30 }, campaignId: campaignIds[0] },
      }),
      await report({ kind: 'GOAL', visibility: 'PUBLIC', params: { window: { lastDays: 7 }, goalId: goalIds[0] } }),
      await report({
        kind: 'LINK',
        visibility: 'UNLISTED',
        password: 'fuzz password',
        params: { window: { from: '2026-01-01', to: '2026-01-31' }, linkId: linkIds[1] },
      }),
      await report({ kind: 'PAGE', visibility: 'PUBLIC', params: { window: { lastDays: 30 }, pageId: pageIds[0] } }),
      await report({ kind: 'CONVERSIONS', params: { window: { lastDays: 90 } } }),
    ];
    const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;
    let tokens = reports.slice(0, 4).map((r) => tokenOf(r.url));
    if (tag.startsWith('t')) {
      const hidden = await report({ kind: 'CONVERSIONS', visibility: 'PUBLIC', params: { window: { lastDays: 7 } } });
      const renewed = await report({
        kind: 'LINK',
        visibility: 'PUBLIC',
        params: { window: { lastDays: 7 }, linkId: linkIds[0] },
      });
      const deleted = await report({
        kind: 'CONVERSIONS',
        visibility: 'UNLISTED',
        params: { window: { lastDays: 7 } },
      });
      await team.owner.request('PATCH', `${base}/reports/${hidden.id}`, { body: { visibility: 'PRIVATE' } });
      await team.owner.request('POST', `${base}/reports/${renewed.id}/token`);
      await team.owner.request('DELETE', `${base}/reports/${deleted.id}`);
      tokens = [tokenOf(hidden.url), tokenOf(renewed.url), tokenOf(deleted.url)];
    }
    // Sessions of the OWNER's that no fuzz request is sent with: ending one signs nobody out.
    const sessionIds = [];
    for (let i = 0; i < 2; i++) {
      const spare = await signIn(server, team.people.owner);
      sessionIds.push(
        (await spare.request('GET', '/sessions')).body.data.find((x: { current: boolean }) => x.current).id,
      );
    }
    // Passkeys of the ANALYST's (not the OWNER's: an OWNER with a factor could require one of
    // everybody, and a restricted session answers 403 where the fuzzer expects 404).
    const passkeyIds = [];
    const authenticator = softAuthenticator();
    for (const name of ['Laptop', 'Phone']) {
      const options = (await team.analyst.request('POST', '/account/passkeys/registration')).body.data.options;
      const added = await team.analyst.request('POST', '/account/passkeys', {
        body: { name, credential: authenticator.register(options) },
      });
      passkeyIds.push(added.body.data.id as string);
    }
    return {
      linkId: linkIds,
      keyId: keyIds,
      userId: userIds,
      invitationId: invitationIds,
      domainId: domainIds,
      tagId: tagIds,
      goalId: goalIds,
      subscriptionId: subscriptionIds,
      deliveryId: deliveryIds,
      campaignId: campaignIds,
      qrCodeId: qrCodeIds,
      pageId: pageIds,
      reportId: reports.map((r) => r.id),
      sessionId: sessionIds,
      passkeyId: passkeyIds,
      token: tokens,
    };
  }

  /** Everything of a workspace the fuzzer must not change from outside it. */
  async function snapshot(workspaceId: string) {
    const rows = async (table: string, order: string) =>
      knex()(table).where({ workspace_id: workspaceId }).orderBy(order);
    return {
      links: await rows('links', 'id'),
      tags: await rows('tags', 'id'),
      domains: await rows('domains', 'id'),
      keys: await rows('api_keys', 'id'),
      members: await rows('memberships', 'user_id'),
      invitations: await rows('invitations', 'id'),
      campaigns: await rows('campaigns', 'id'),
      goals: await rows('goals', 'id'),
      reports: await rows('reports', 'id'),
      conversions: await rows('conversions', 'id'),
      webhookSubscriptions: await rows('webhook_subscriptions', 'id'),
      webhookDeliveries: await rows('webhook_deliveries', 'id'),
      pages: await rows('bio_pages', 'id'),
      linkTags: await knex()('link_tags')
        .whereIn('link_id', knex()('links').where({ workspace_id: workspaceId }).select('id'))
        .orderBy(['link_id', 'tag_id']),
    };
  }

  beforeAll(async () => {
    // Destinations may be fetched: getDestinationPreview is fuzzed as it serves (its 503 when off
    // is tested in test/dashboard/destination-preview.test.ts). Mail goes to an SMTP server on
    // loopback, so requestPasswordReset and mailed invitations are fuzzed as they serve (the 503
    // without SMTP_URL is tested in test/dashboard/mail.test.ts).
    smtp = await startSmtp();
    server = await startTestServer(engine, { env: { DESTINATION_FETCH: 'on', SMTP_URL: smtp.url } });
    client = new FuzzClient(server.url, server.ca, IN_FLIGHT);
    mine = await seedTeam(server);
    theirs = await seedTeam(server);
    pools.mine = await seedObjects(mine, `m${engine}`);
    pools.theirs = await seedObjects(theirs, `t${engine}`);
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
    await smtp?.close();
  });

  function build(plan: Plan): { request: RawRequest; sentIds: Set<string> } {
    const { op } = plan;
    const rnd = fc.sample(fc.nat(), { numRuns: 1, seed: plan.seed })[0];
    const sentIds = new Set<string>();
    const pick = <T>(list: T[], n = rnd) => list[n % list.length];
    const idFor = (name: keyof Pools, which: Plan['objects']) => {
      if (which === 'nowhere') return `${name.replace('Id', '')}_nowhere${rnd % 97}`;
      const id = pick(pools[which][name]);
      sentIds.add(id);
      return id;
    };
    const workspaceId =
      plan.workspace === 'mine' ? mine.workspaceId : plan.workspace === 'theirs' ? theirs.workspaceId : 'ws_nowhere';
    if (plan.workspace === 'theirs') sentIds.add(theirs.workspaceId);
    let path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      encodeURIComponent(
        name === 'workspaceId'
          ? workspaceId
          : name === 'host'
            ? // A site's host (getFavicon): ones the network rules refuse without asking DNS, and bad ones.
              pick(['127.0.0.1', '10.0.0.1:8443', '169.254.169.254', 'not a host', 'a..b', 'x'.repeat(300)])
            : idFor(name as keyof Pools, plan.objects),
      ),
    );
    // Query parameters: valid values from their schemas, now and then a wrong one.
    const query = new URLSearchParams();
    for (const p of op.parameters.filter((x) => x.in === 'query')) {
      if (p.name === 'token') {
        query.set('token', 'not-a-token');
        continue;
      }
      if (rnd % 3 === 0) continue;
      const value = QUERY_IDS.has(p.name)
        ? idFor(p.name as keyof Pools, plan.objects)
        : fc.sample(arbFor(p.schema), { numRuns: 1, seed: plan.seed })[0];
      // A free-form parameter (style form, explode: an object) sends each of its entries by name.
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [k, v] of Object.entries(value)) if (!query.has(k)) query.set(k, String(v));
        continue;
      }
      query.set(p.name, String(plan.body === 'wrong-type' && rnd % 2 ? pick(['x', '-1', '1e9', '']) : value));
    }
    if ([...query.keys()].length) path += `?${query}`;

    const headers: Record<string, string> = {};
    const who: DashboardClient = mine[plan.who];
    if (plan.auth !== 'no-session') headers.cookie = who.cookie;
    if (UNSAFE.has(op.method) && plan.auth !== 'no-token') headers['x-csrf-token'] = who.csrfToken;
    if (plan.auth === 'other-origin') headers.origin = 'https://attacker.example';

    let body: string | Buffer | undefined;
    const types = op.requestMediaTypes;
    if (types.includes('text/csv') && plan.body !== 'none') {
      headers['content-type'] = plan.body === 'wrong-type' ? 'application/json' : 'text/csv';
      const rows = fc.sample(
        fc.array(
          fc.tuple(
            fc.oneof(fc.webUrl(), text(0, 30)),
            fc.oneof(fc.constant(''), fc.stringMatching(/^[a-z0-9-]{1,12}$/), text(0, 10)),
            text(0, 20),
          ),
          { maxLength: 8 },
        ),
        { numRuns: 1, seed: plan.seed },
      )[0];
      const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;
      body =
        plan.body === 'malformed'
          ? 'url,slug\n"unterminated'
          : ['url,slug,title', ...rows.map((r) => r.map(cell).join(','))].join('\n');
    } else if (types.some((t) => t.startsWith('image/')) && plan.body !== 'none') {
      headers['content-type'] = plan.body === 'wrong-type' ? 'image/svg+xml' : 'image/png';
      body =
        plan.body === 'valid'
          ? PNG
          : Buffer.from(fc.sample(fc.uint8Array({ maxLength: 64 }), { numRuns: 1, seed: plan.seed })[0]);
    } else if (op.requestSchema && plan.body !== 'none') {
      headers['content-type'] = 'application/json';
      const hint = (name: string, schema: any) => {
        if (name === 'tagIds' || name === 'linkIds')
          return fc.array(fc.constant(idFor(name === 'tagIds' ? 'tagId' : 'linkId', plan.objects)), {
            minLength: 1,
            maxLength: 2,
          });
        if (name === 'tagId') return fc.constant(idFor('tagId', plan.objects));
        // A page's link blocks (and a goal's scope) name links of some workspace.
        if (name === 'linkId') return fc.constant(idFor('linkId', plan.objects));
        if (name === 'handle')
          return fc.oneof(fc.stringMatching(/^[a-z0-9_-]{1,20}$/), fc.constantFrom('With Space', '', 'x'.repeat(70)));
        if (name === 'domainId' && rnd % 4 === 0) return fc.constant(idFor('domainId', plan.objects));
        if (name === 'url' || name === 'expiredUrl')
          return fc.oneof(
            fc.webUrl({ validSchemes: ['https', 'http'] }),
            fc.constantFrom('javascript:alert(1)', 'ftp://x', ''),
          );
        if (name === 'slug')
          return fc.oneof(fc.stringMatching(/^[a-z0-9_-]{1,20}$/), fc.constantFrom('app', 'API', 'with space'));
        if (name === 'email') return fc.oneof(fc.emailAddress(), text(0, 10));
        if (name === 'host') return fc.oneof(fc.domain(), text(0, 20));
        if (name === 'password' || name === 'newPassword') return text(0, 16);
        if (name === 'email' || name === 'token') return text(0, 12);
        if (schema.format === 'date-time')
          return fc.constantFrom('2031-01-01T00:00:00Z', '2020-01-01T00:00:00Z', 'tomorrow');
        // A report's window days, and the goal or link a report names.
        if (schema.format === 'date')
          return fc.constantFrom('2026-01-01', '2026-03-31', '2024-01-01', '2026-02-30', 'yesterday');
        if (name === 'goalId' || (name === 'linkId' && rnd % 2 === 0)) return fc.constant(idFor(name, plan.objects));
        return undefined;
      };
      let value = fc.sample(arbFor(op.requestSchema, hint), { numRuns: 1, seed: plan.seed })[0] as Record<
        string,
        unknown
      >;
      const props = Object.keys(op.requestSchema.properties ?? {});
      if (plan.body === 'wrong-type' && props.length) {
        const prop = pick(props);
        value = { ...value, [prop]: pick(wrongTypeValues(op.requestSchema.properties[prop])) };
      }
      if (plan.body === 'extra') value = { ...value, notAField: 1 };
      if (plan.body === 'torture' && props.length) value = { ...value, [pick(props)]: pick(UNICODE_TORTURE) };
      body = plan.body === 'malformed' ? '{"url": ' : JSON.stringify(value);
    }
    return { request: { method: op.method, path: `${DASHBOARD_API}${path}`, headers, body }, sentIds };
  }

  /** What the plan makes certain about the answer, beyond the contract. */
  function expectations(plan: Plan, res: RawResponse, sentIds: Set<string>, theirIds: string[]): string[] {
    const problems = dashboard.checkResponse(plan.op, res);
    const roles = plan.op.op['x-roles'];
    const isPublic = roles === 'public';
    const unsafe = UNSAFE.has(plan.op.method);
    const inWorkspace = plan.op.path.includes('{workspaceId}');
    const objectInPath =
      /\{(linkId|keyId|userId|domainId|subscriptionId|deliveryId|pageId|reportId|passkeyId|token)\}/.test(plan.op.path);
    const ok = res.status >= 200 && res.status < 300;
    if (!isPublic && plan.auth === 'no-session' && res.status !== 401) problems.push(`no session, but ${res.status}`);
    else if (!isPublic && plan.auth !== 'no-session' && unsafe && plan.auth !== 'ok' && res.status !== 403)
      problems.push(`${plan.auth} on a change, but ${res.status}`);
    else if (!isPublic && plan.auth === 'ok' && inWorkspace && plan.workspace !== 'mine' && res.status !== 404)
      problems.push(`workspace ${plan.workspace}, but ${res.status}`);
    else if (
      !isPublic &&
      plan.auth === 'ok' &&
      inWorkspace &&
      plan.workspace === 'mine' &&
      Array.isArray(roles) &&
      !roles.includes(plan.who.toUpperCase()) &&
      res.status !== 403
    ) {
      problems.push(`${plan.who} may not ${plan.op.operationId}, but ${res.status}`);
    }
    if (objectInPath && plan.objects !== 'mine' && ok)
      problems.push(`${plan.objects} object in the path, but ${res.status}`);
    // No answer shows another workspace's ids (other than those the request itself named).
    for (const id of theirIds)
      if (!sentIds.has(id) && res.text.includes(id)) problems.push(`answer shows ${id} of another workspace`);
    if (res.transportError) problems.push(`transport: ${res.transportError}`);
    return problems;
  }

  it(`answers ${REQUESTS} generated requests within the contract, and changes nothing of another workspace`, async () => {
    const before = await snapshot(theirs.workspaceId);
    const theirIds = [theirs.workspaceId, ...Object.values(pools.theirs).flat(), ...before.links.map((l: any) => l.id)];
    const plans = fc.sample(planArb, { numRuns: REQUESTS, seed: SEED });
    const failures: string[] = [];
    const byStatus = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < plans.length) {
          const plan = plans[next++];
          const { request, sentIds } = build(plan);
          const res = await client.send(request);
          byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
          const problems = expectations(plan, res, sentIds, theirIds);
          if (problems.length && failures.length < 20) {
            failures.push(
              `${plan.op.operationId} ${request.method} ${request.path} as ${plan.who} (${plan.auth}, ws ${plan.workspace}, objects ${plan.objects}, body ${plan.body}): ${problems.join('; ')}\n  body sent: ${String(request.body ?? '').slice(0, 200)}\n  answer: ${res.status} ${res.text.slice(0, 300)}`,
            );
          }
        }
      }),
    );
    console.log(
      `[dashboard fuzz ${engine}] seed ${SEED}: ${plans.length} requests; by status: ${[...byStatus]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ')}`,
    );
    expect(failures, `FUZZ_SEED=${SEED}\n${failures.join('\n')}`).toEqual([]);
    // Most requests did something: the fuzzer is not only producing errors.
    const succeeded = [...byStatus].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
    expect(succeeded).toBeGreaterThan(plans.length / 5);
    expect(await snapshot(theirs.workspaceId)).toEqual(before);
  }, 600_000);
});
