// The dashboard's contract says every rule of its requests that JSON Schema can say, so that
// Prism's mock, the generated client and any other reader refuse what the service refuses: each
// request below is invalid against its operation's schema (Ajv 2020-12, as those readers check
// it), and the service, through HTTPS on every engine, refuses it with 400 and a message that
// names the field and says what is wrong. A few near misses the service takes are valid too.
import { describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { serverWithTeam } from '../support/dashboard';
import { paramValid } from '../support/fuzz-gen';
import { openDocument } from '../support/fuzz-openapi';

const dashboard = openDocument('dashboard.json');
const operations = dashboard.operations();
const operation = (operationId: string) => operations.find((o) => o.operationId === operationId)!;

/** Whether a body is valid against the operation's JSON request schema, as a reader of the contract checks it. */
function bodyValid(operationId: string, body: unknown): boolean {
  const pointer = `${operation(operationId).pointer}/requestBody/content/application~1json/schema`;
  return dashboard.validatorAt(pointer)(body) as boolean;
}
function queryValid(operationId: string, query: Record<string, string>): boolean {
  const parameters = operation(operationId).parameters.filter((p) => p.in === 'query');
  const schemaOf = (name: string) => parameters.find((p) => p.name === name)!.schema;
  return Object.entries(query).every(([name, value]) => paramValid(schemaOf(name), value));
}

/** A request under the workspace: its operation, method, path, and body or query. */
interface Sent {
  operationId: string;
  method: string;
  path: string;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
}
type Case = Sent & { what: string; field: string; error: string | RegExp };

type Body = Record<string, unknown>;
const post =
  (operationId: string, path: string) =>
  (body: Body): Sent => ({ operationId, method: 'POST', path, body });
const get = (operationId: string, path: string, query: Sent['query']): Sent => ({
  operationId,
  method: 'GET',
  path,
  query,
});
const link = (body: Body) => post('createDashboardLink', '/links')({ url: 'https://example.com', ...body });
const goal = (body: Body) => post('createDashboardGoal', '/goals')({ name: 'Purchases', type: 'purchase', ...body });
const window7 = { window: { lastDays: 7 } };
const report = (body: Body) =>
  post('createDashboardReport', '/reports')({ kind: 'CONVERSIONS', title: 'Report', params: window7, ...body });
const page = (body: Body) => post('createPage', '/pages')({ handle: 'rules-page', title: 'Page', ...body });
const hook = { variant: 'A', url: 'https://hooks.example.com/x', events: ['link.created'] };
const subscription = (body: Body) =>
  post('createDashboardWebhookSubscription', '/webhooks/subscriptions')({ ...hook, ...body });
const refuse = (what: string, sent: Sent, field: string, error: Case['error']): Case => ({
  what,
  ...sent,
  field,
  error,
});
const ISO = 'must be an ISO 8601 date-time with a time zone, such as 2027-01-31T12:00:00Z';
const EVENT = 'must be an event name of Variant A or B (GET .../webhooks/events lists them)';
const TOGETHER = 'targetValueMinor and targetCurrency go together';
const CONVERSION_PARAMS = 'window, eventType, customName, linkId, campaignId, qrCodeId';

const never = { neverExpires: true, expiresAt: '2031-01-01T00:00:00Z' };

const refused: Case[] = [
  refuse(
    'a key expiring at a date without a time',
    post('createKey', '/keys')({ scopes: ['links:read'], expiresAt: '2031-01-01' }),
    'expiresAt',
    `expiresAt ${ISO}`,
  ),
  refuse(
    'a goal report ending at a word',
    get('getDashboardGoalReport', '/goals/goal_nowhere/report', { to: 'tomorrow' }),
    'to',
    `query parameter to ${ISO}`,
  ),
  refuse(
    'a host with a scheme',
    post('addDomain', '/domains')({ host: 'https://go.example.com' }),
    'host',
    'host must be a host name without scheme, port or path, such as go.example.com',
  ),
  refuse(
    'a handle with a space',
    page({ handle: 'two words' }),
    'handle',
    'handle must be 1 to 64 characters of a-z, 0-9, _ and -',
  ),
  refuse('a blank page title', page({ title: '   ' }), 'title', 'title must not be empty'),
  refuse(
    'an avatar over plain http',
    page({ avatarUrl: 'http://localhost:8443/assets/a.png' }),
    'avatarUrl',
    'avatarUrl must be an https URL of an image hosted by the service',
  ),
  refuse(
    'a link block naming neither a link nor a URL',
    page({ blocks: [{ type: 'link', text: 'Go' }] }),
    'blocks.0.url',
    'blocks.0: a link block names either linkId (a short link of this workspace) or url (to shorten)',
  ),
  refuse(
    'a heading with a URL',
    page({ blocks: [{ type: 'heading', text: 'Hi', url: 'https://example.com' }] }),
    'blocks.0',
    'blocks.0: only link blocks have linkId or url',
  ),
  refuse(
    'a heading over 100 characters',
    page({ blocks: [{ type: 'heading', text: 'h'.repeat(101) }] }),
    'blocks.0.text',
    'blocks.0.text must be at most 100 characters',
  ),
  refuse(
    'a value target without its currency',
    goal({ targetValueMinor: 500 }),
    'targetCurrency',
    new RegExp(`^${TOGETHER}`),
  ),
  refuse(
    'a value target with a null currency',
    goal({ targetValueMinor: 500, targetCurrency: null }),
    'targetCurrency',
    TOGETHER,
  ),
  refuse(
    'a currency without its value target',
    goal({ targetValueMinor: null, targetCurrency: 'EUR' }),
    'targetValueMinor',
    TOGETHER,
  ),
  refuse(
    'a currency that is no code',
    goal({ targetValueMinor: 500, targetCurrency: 'EURO' }),
    'targetCurrency',
    'targetCurrency must be an ISO 4217 code; got "EURO"',
  ),
  refuse(
    'a custom name with another type',
    goal({ customName: 'webinar' }),
    'customName',
    'customName goes with type custom',
  ),
  refuse(
    'a goal measuring two objects',
    goal({ linkId: 'lnk_a', campaignId: 'cmp_b' }),
    'campaignId',
    'a goal measures at most one of linkId, qrCodeId, campaignId',
  ),
  refuse('a blank goal name', goal({ name: '  ' }), 'name', 'name must be 1 to 200 characters'),
  refuse(
    'a GOAL report without its goal',
    report({ kind: 'GOAL' }),
    'params.goalId',
    'params.goalId is required when kind is GOAL',
  ),
  refuse(
    'a LINK report with a conversions filter',
    report({ kind: 'LINK', params: { window: { lastDays: 7 }, linkId: 'lnk_a', eventType: 'lead' } }),
    'params.eventType',
    'params.eventType does not go with a LINK report; it takes window, linkId',
  ),
  refuse(
    'a CONVERSIONS report with a goal',
    report({ params: { ...window7, goalId: 'goal_a' } }),
    'params.goalId',
    `params.goalId does not go with a CONVERSIONS report; it takes ${CONVERSION_PARAMS}`,
  ),
  refuse(
    'a custom name with another event type',
    report({ params: { window: { lastDays: 7 }, eventType: 'lead', customName: 'webinar' } }),
    'params.customName',
    'customName narrows custom events; it cannot be combined with another eventType',
  ),
  refuse(
    'a PAGE report without its page',
    report({ kind: 'PAGE' }),
    'params.pageId',
    'params.pageId is required when kind is PAGE',
  ),
  refuse(
    'a PAGE report with a link',
    report({ kind: 'PAGE', params: { window: { lastDays: 7 }, pageId: 'pg_a', linkId: 'lnk_a' } }),
    'params.linkId',
    'params.linkId does not go with a PAGE report; it takes window, pageId',
  ),
  refuse(
    'a LINK report with a page',
    report({ kind: 'LINK', params: { window: { lastDays: 7 }, linkId: 'lnk_a', pageId: 'pg_a' } }),
    'params.pageId',
    'params.pageId does not go with a LINK report; it takes window, linkId',
  ),
  refuse(
    'an unknown kind of report',
    report({ kind: 'TAG' }),
    'kind',
    'kind must be one of: CONVERSIONS, GOAL, LINK, PAGE',
  ),
  refuse('a blank report title', report({ title: ' ' }), 'title', 'title must be 1 to 200 characters'),
  refuse(
    'add_tag without the tag',
    post('bulkLinks', '/links/bulk')({ linkIds: ['lnk_a'], action: 'add_tag' }),
    'tagId',
    'tagId is required when action is add_tag',
  ),
  refuse(
    'a Variant B name on a Variant A subscription',
    subscription({ events: ['link.clicked'] }),
    'events',
    /^events names unknown event names: "link\.clicked"/,
  ),
  refuse(
    'a retired name',
    subscription({ events: ['click.recorded'] }),
    'events',
    /^events names retired event names [^:]*: "click\.recorded"/,
  ),
  refuse(
    "a Variant A subscription's secret",
    subscription({ secret: 'sixteen characters!' }),
    'secret',
    'secret is chosen by the service for Variant A; send it for Variant B only',
  ),
  refuse(
    'a Variant B subscription without its secret',
    subscription({ variant: 'B', events: ['link.clicked'] }),
    'secret',
    'secret is required when variant is B',
  ),
  refuse(
    'a plain http endpoint',
    subscription({ url: 'http://hooks.example.com/x' }),
    'url',
    'url must be an absolute https URL; plain http URLs are refused',
  ),
  refuse(
    'a test of no event',
    post('sendDashboardWebhookTest', '/webhooks/subscriptions/whk_nowhere/test')({ event: 'link.exploded' }),
    'event',
    `event ${EVENT}`,
  ),
  refuse(
    'a log filter of no event',
    get('listDashboardWebhookDeliveries', '/webhooks/deliveries', { event: 'link.exploded' }),
    'event',
    `event ${EVENT}`,
  ),
  refuse('a blank tag name', post('createTag', '/tags')({ name: ' ' }), 'name', 'name must not be blank'),
  refuse(
    'a colour that is a word',
    post('createTag', '/tags')({ name: 'red', color: 'red' }),
    'color',
    'color must be a colour written #rrggbb',
  ),
  refuse(
    'a blank campaign name',
    post('createCampaign', '/campaigns')({ name: ' ' }),
    'name',
    'name must not be blank',
  ),
  refuse(
    'a slug with a dot',
    link({ slug: 'dot.dot' }),
    'slug',
    'slug must be 1 to 64 characters of a-z, 0-9, _ and -',
  ),
  refuse(
    'a destination that is not http(s)',
    link({ url: 'ftp://example.com/x' }),
    'url',
    'url must be an absolute http or https URL',
  ),
  refuse('an empty tag id', link({ tagIds: [''] }), 'tagIds.0', 'tagIds.0 must not be empty'),
  refuse(
    'neverExpires with a date',
    { operationId: 'updateDashboardLink', method: 'PATCH', path: '/links/lnk_nowhere', body: never },
    'neverExpires',
    'neverExpires true cannot be combined with an expiresAt date',
  ),
];

describe.each(testEngines())("the dashboard contract's rules on %s", (engine) => {
  const fixture = serverWithTeam(engine);

  it.each(refused)('the contract and the service refuse $what', async (c) => {
    if (c.body) expect(bodyValid(c.operationId, c.body), 'the contract takes it').toBe(false);
    if (c.query) expect(queryValid(c.operationId, c.query), 'the contract takes it').toBe(false);
    const query = c.query ? `?${new URLSearchParams(c.query)}` : '';
    const path = `/workspaces/${fixture.team.workspaceId}${c.path}${query}`;
    const res = await fixture.team.owner.request(c.method, path, c.body ? { body: c.body } : {});
    expect(res.status, res.text).toBe(400);
    expect(res.body.field).toBe(c.field);
    if (typeof c.error === 'string') expect(res.body.error).toBe(c.error);
    else expect(res.body.error).toMatch(c.error);
  });

  it('takes the near misses the service takes: padded handles and hosts, unset targets, a reserved slug', async () => {
    const base = `/workspaces/${fixture.team.workspaceId}`;
    const padded = { handle: '  Padded-Handle ', title: 'Padded' };
    const host = { host: ' Go-Padded.Example.com ' };
    const none = { customName: null, linkId: null, qrCodeId: null, campaignId: '', targetValueMinor: null };
    const noCurrency = { targetCurrency: null };
    const unset = { name: 'Unset', type: 'purchase', ...none, ...noCurrency };
    const custom = { name: 'C', type: 'custom', customName: 'webinar', targetValueMinor: 5, targetCurrency: 'eur' };
    // Reserved slugs with a dot are the contract's too: the service's answer is their 409.
    const reserved = { url: 'https://example.com', slug: 'Favicon.ICO' };
    const valid: Array<[string, Body]> = [
      ['createPage', padded],
      ['addDomain', host],
      ['createDashboardGoal', unset],
      ['createDashboardGoal', custom],
      ['createDashboardLink', reserved],
    ];
    for (const [operationId, body] of valid) expect(bodyValid(operationId, body), operationId).toBe(true);
    const make = (path: string, body: Body) => fixture.team.owner.request('POST', `${base}${path}`, { body });
    expect((await make('/pages', padded)).body.data.handle).toBe('padded-handle');
    expect((await make('/domains', host)).body.data.host).toBe('go-padded.example.com');
    expect((await make('/goals', unset)).status).toBe(201);
    expect((await make('/goals', custom)).body.data.targetCurrency).toBe('EUR');
    expect((await make('/links', reserved)).status).toBe(409);
  });
});
