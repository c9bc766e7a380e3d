// What visitors reach (followShortLink, submitLinkPassword, scanQrCode) and the probes
// (getHealth, getReadiness). The main test server takes 127.0.0.1 as its short domain: Prism's
// forwarder drops the client's Host and sends the upstream's, 127.0.0.1:<port>. Requests sent
// directly carry that Host themselves.
//
// Redirects (301, 302) cannot travel through the proxy: Prism's forwarder follows them and would
// fetch the destination (./prism-detection.test.ts shows it), so they are checked directly with
// Prism's validator; so is the PNG QR image, which the forwarder re-encodes as text. Every
// request sent through the proxy here answers a page, never a redirect: nothing leaves this machine.
// The 503 of a database that cannot be read is in ./deployment.ts.
import { describe, expect, it } from 'vitest';
import { createQrCode } from '../../../src/db/repos/workspace-objects';
import {
  call,
  CRAWLER,
  PERSON,
  SHORT_HOST,
  type Call,
  type ContractContext,
  METRICS_TOKEN,
  TLS_ASK_TOKEN,
} from './context';

const HOUR = 3_600_000;
const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();

/** A visitor's request on the short domain. */
export const visit = (path: string, headers: Record<string, string> = {}): Call =>
  call('GET', path, { headers: { host: SHORT_HOST, 'user-agent': PERSON, ...headers } });
/** The password form posted back, with the cookie it came with. */
export const submit = (
  path: string,
  form: Record<string, string>,
  cookie = '',
  headers: Record<string, string> = {},
): Call =>
  call('POST', path, {
    rawBody: new URLSearchParams(form).toString(),
    headers: {
      host: SHORT_HOST,
      'user-agent': PERSON,
      'content-type': 'application/x-www-form-urlencoded',
      cookie,
      ...headers,
    },
  });

const REDIRECT_CACHE_CONTROL = /^private, no-store, no-cache, max-age=0, must-revalidate$/;
const cookieOf = (res: { headers: Record<string, any> }) =>
  String([res.headers['set-cookie']].flat()[0] ?? '').split(';')[0];
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1];

export function visitorSuites(ctx: ContractContext) {
  describe('visitor paths and probes', () => {
    let n = 0;
    /** A link with a slug of its own; returns its path. */
    const link = async (body: object = {}) => {
      const slug = `v-${++n}-${Date.now().toString(36)}`;
      const made = await ctx.makeLink({ url: `https://example.com/${slug}`, slug, ...body });
      return { ...made, path: `/${slug}` };
    };
    const qrOf = async (linkId: string) =>
      `/qr/${(await createQrCode(ctx.knex(), ctx.owner.workspaceId, linkId)).code}`;
    const expectPage = (res: { headers: Record<string, any>; text: string }, text: string) => {
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain(text);
    };

    describe('getRoot', () => {
      it("302 to the dashboard on the dashboard's host (checked directly), 404 on a short domain", async () => {
        const res = await ctx.directly('getRoot', call('GET', '/', { headers: { host: 'localhost:8443' } }), 302, null);
        expect(res.headers.location).toBe('/app/');
        expect(res.headers['cache-control']).toBe('no-store');
        const none = await ctx.viaPrism('getRoot', call('GET', '/'), 404, null);
        expect(none.body.error).toMatch(/root of a short domain/);
      });
    });

    describe('followShortLink', () => {
      it('302 (TEMPORARY) and 301 (PERMANENT) with headers that forbid reuse (checked directly)', async () => {
        const temp = await link();
        const t = await ctx.directly('followShortLink', visit(temp.path), 302, null);
        expect(t.headers.location).toBe(temp.originalUrl);
        expect(t.headers['cache-control']).toMatch(REDIRECT_CACHE_CONTROL);
        const perm = await link({ redirectType: 'PERMANENT' });
        const p = await ctx.directly('followShortLink', visit(perm.path.toUpperCase()), 301, null);
        expect(p.headers.location).toBe(perm.originalUrl);
        expect(p.headers['cache-control']).toMatch(REDIRECT_CACHE_CONTROL);
      });

      it('302 to expiredUrl after expiry (checked directly)', async () => {
        const expired = await link({ expiresAt: isoIn(-1000), expiredUrl: 'https://example.com/over' });
        const res = await ctx.directly('followShortLink', visit(expired.path), 302, null);
        expect(res.headers.location).toBe('https://example.com/over');
      });

      it('200 for a social-preview crawler: the Open Graph card', async () => {
        const card = await link({ url: 'https://example.com/card' });
        await ctx.main.server.request('PATCH', `/api/v1/links/${card.id}`, {
          key: ctx.owner.key,
          body: { previewTitle: 'Spring sale', previewDescription: 'Half off' },
        });
        const res = await ctx.viaPrism('followShortLink', visit(card.path, { 'user-agent': CRAWLER }), 200, null);
        expectPage(res, '<meta property="og:title" content="Spring sale">');
      });

      it('401: the password form, with its cookie and WWW-Authenticate', async () => {
        const locked = await link({ password: 'open sesame' });
        const res = await ctx.viaPrism('followShortLink', visit(locked.path), 401, null);
        expectPage(res, 'type="password"');
        expect(res.headers['www-authenticate']).toBe('Form realm="Shortlink link password"');
        expect(cookieOf(res)).toMatch(/^sl_csrf=/);
        expect(res.headers.location).toBeUndefined();
      });

      it('404 for an unknown slug, a DISABLED link, a deleted link and one not live yet', async () => {
        expectPage(await ctx.viaPrism('followShortLink', visit('/no-such-slug'), 404, null), 'Link not found');
        expectPage(await ctx.viaPrism('followShortLink', visit('/not.a.slug'), 404, null), 'Link not found');
        const disabled = await link({});
        await ctx.main.server.request('PATCH', `/api/v1/links/${disabled.id}`, {
          key: ctx.owner.key,
          body: { status: 'DISABLED' },
        });
        expectPage(await ctx.viaPrism('followShortLink', visit(disabled.path), 404, null), 'Link not found');
        const deleted = await link();
        await ctx.main.server.request('DELETE', `/api/v1/links/${deleted.id}`, { key: ctx.owner.key });
        expectPage(await ctx.viaPrism('followShortLink', visit(deleted.path), 404, null), 'Link not found');
        const later = await link({ startAt: isoIn(HOUR) });
        expectPage(await ctx.viaPrism('followShortLink', visit(later.path), 404, null), 'Not live yet');
      });

      it('404 { error } for a reserved name: the address belongs to the API, not to a short link', async () => {
        const res = await ctx.viaPrism('followShortLink', visit('/login'), 404, null);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toEqual({ error: expect.any(String) });
        expect(res.headers['x-service-request-id']).toBeTruthy();
      });

      it('410 after endAt, after expiresAt without expiredUrl, and once the click limit is reached', async () => {
        const ended = await link({ startAt: isoIn(-2 * HOUR), endAt: isoIn(-HOUR) });
        expectPage(await ctx.viaPrism('followShortLink', visit(ended.path), 410, null), 'Link no longer live');
        const expired = await link({ expiresAt: isoIn(-1000) });
        expectPage(await ctx.viaPrism('followShortLink', visit(expired.path), 410, null), 'Link expired');
        const limited = await link({ clickLimit: 1 });
        await ctx.directly('followShortLink', visit(limited.path), 302, null); // the one click it allows
        expectPage(await ctx.viaPrism('followShortLink', visit(limited.path), 410, null), 'Link no longer available');
      });
    });

    describe('submitLinkPassword', () => {
      /** A password link and its form: the token and the cookie it must match. */
      const lockedLink = async (body: object = {}) => {
        const made = await link({ password: 'open sesame', ...body });
        const form = await ctx.main.server.request('GET', made.path, visit(made.path).opts);
        expect(form.status).toBe(401);
        return { ...made, csrf: csrfOf(form.text), cookie: cookieOf(form) };
      };

      it('302 and 301 for the right password (checked directly)', async () => {
        const temp = await lockedLink();
        const t = await ctx.directly(
          'submitLinkPassword',
          submit(temp.path, { csrf: temp.csrf, password: 'open sesame' }, temp.cookie),
          302,
          null,
        );
        expect(t.headers.location).toBe(temp.originalUrl);
        const perm = await lockedLink({ redirectType: 'PERMANENT' });
        const p = await ctx.directly(
          'submitLinkPassword',
          submit(perm.path, { csrf: perm.csrf, password: 'open sesame' }, perm.cookie),
          301,
          null,
        );
        expect(p.headers.location).toBe(perm.originalUrl);
      });

      it('401: the form again after a wrong password or without the matching token', async () => {
        const locked = await lockedLink();
        const wrong = await ctx.viaPrism(
          'submitLinkPassword',
          submit(locked.path, { csrf: locked.csrf, password: 'nope' }, locked.cookie),
          401,
          null,
        );
        expectPage(wrong, 'not correct');
        expect(wrong.headers['www-authenticate']).toBe('Form realm="Shortlink link password"');
        const noCookie = await ctx.viaPrism(
          'submitLinkPassword',
          submit(locked.path, { csrf: locked.csrf, password: 'open sesame' }),
          401,
          null,
        );
        expectPage(noCookie, 'session expired');
      });

      it('400 { error } for a reserved name: the API takes the address and wants a JSON body', async () => {
        const res = await ctx.viaPrism('submitLinkPassword', submit('/login', { csrf: 'x', password: 'y' }), 400, null);
        expect(res.body).toEqual({ error: expect.any(String) });
      });

      it('404 for an unknown slug; 405 with Allow for a link without a password', async () => {
        expectPage(
          await ctx.viaPrism('submitLinkPassword', submit('/no-such-slug', { csrf: 'x', password: 'y' }), 404, null),
          'Link not found',
        );
        const open = await link();
        const res = await ctx.viaPrism(
          'submitLinkPassword',
          submit(open.path, { csrf: 'x', password: 'y' }),
          405,
          null,
        );
        expect(res.headers.allow).toBe('GET, HEAD');
        expectPage(res, 'Method not allowed');
        expect(res.text).not.toContain('Link not found');
      });

      it('410 for a password link that has ended', async () => {
        const ended = await link({ password: 'open sesame', startAt: isoIn(-2 * HOUR), endAt: isoIn(-HOUR) });
        expectPage(
          await ctx.viaPrism(
            'submitLinkPassword',
            submit(ended.path, { csrf: 'x', password: 'open sesame' }),
            410,
            null,
          ),
          'Link no longer live',
        );
      });

      it('413 for a form over 4 KiB', async () => {
        const locked = await lockedLink();
        const res = await ctx.viaPrism(
          'submitLinkPassword',
          submit(locked.path, { csrf: locked.csrf, password: 'open sesame', note: 'n'.repeat(5000) }, locked.cookie),
          413,
          null,
        );
        expectPage(res, 'Form too large');
        expect(res.text).not.toContain('no link at this address');
      });

      it('429 with Retry-After after five wrong passwords, even for the right one', async () => {
        const locked = await lockedLink();
        for (let i = 0; i < 5; i++) {
          await ctx.viaPrism(
            'submitLinkPassword',
            submit(locked.path, { csrf: locked.csrf, password: `wrong ${i}` }, locked.cookie),
            401,
            null,
          );
        }
        const blocked = await ctx.viaPrism(
          'submitLinkPassword',
          submit(locked.path, { csrf: locked.csrf, password: 'open sesame' }, locked.cookie),
          429,
          null,
        );
        expect(blocked.headers['content-type']).toMatch(/^text\/html/);
        expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      });
    });

    describe('scanQrCode', () => {
      it("302 and 301 like the QR code's link (checked directly)", async () => {
        const temp = await link();
        const t = await ctx.directly('scanQrCode', visit(await qrOf(temp.id)), 302, null);
        expect(t.headers.location).toBe(temp.originalUrl);
        const perm = await link({ redirectType: 'PERMANENT' });
        const p = await ctx.directly('scanQrCode', visit(await qrOf(perm.id)), 301, null);
        expect(p.headers.location).toBe(perm.originalUrl);
      });

      it('200: the SVG image through Prism, the PNG image directly (the forwarder re-encodes binary bodies)', async () => {
        const path = await qrOf((await link()).id);
        const svg = await ctx.viaPrism('scanQrCode', visit(`${path}.svg`), 200, null);
        expect(svg.headers['content-type']).toBe('image/svg+xml');
        expect(svg.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
        const png = await ctx.directly('scanQrCode', visit(`${path}.png`), 200, null);
        expect(png.headers['content-type']).toBe('image/png');
        expect(png.text.slice(1, 4)).toBe('PNG');
      });

      it("200 for a social-preview crawler: the link's card", async () => {
        const card = await link({ url: 'https://example.com/qr-card' });
        await ctx.main.server.request('PATCH', `/api/v1/links/${card.id}`, {
          key: ctx.owner.key,
          body: { previewTitle: 'QR card' },
        });
        expectPage(
          await ctx.viaPrism('scanQrCode', visit(await qrOf(card.id), { 'user-agent': CRAWLER }), 200, null),
          'content="QR card"',
        );
      });

      it('401 for the QR code of a password link', async () => {
        const locked = await link({ password: 'open sesame' });
        expectPage(await ctx.viaPrism('scanQrCode', visit(await qrOf(locked.id)), 401, null), 'type="password"');
      });

      it('404 for an unknown code and for the QR code of a deleted link', async () => {
        expectPage(await ctx.viaPrism('scanQrCode', visit('/qr/nosuchcode'), 404, null), 'Link not found');
        const doomed = await link();
        const path = await qrOf(doomed.id);
        await ctx.main.server.request('DELETE', `/api/v1/links/${doomed.id}`, { key: ctx.owner.key });
        expectPage(await ctx.viaPrism('scanQrCode', visit(path), 404, null), 'Link not found');
      });

      it('404 { error } on a host that is not a short domain: the API answers (checked directly)', async () => {
        const path = await qrOf((await link()).id);
        const res = await ctx.directly(
          'scanQrCode',
          call('GET', path, { headers: { host: 'localhost', 'user-agent': PERSON } }),
          404,
          null,
        );
        expect(res.body).toEqual({ error: expect.any(String) });
      });

      it('410 for the QR code of an ended link', async () => {
        const ended = await link({ startAt: isoIn(-2 * HOUR), endAt: isoIn(-HOUR) });
        expectPage(await ctx.viaPrism('scanQrCode', visit(await qrOf(ended.id)), 410, null), 'Link no longer live');
      });
    });

    describe('probes', () => {
      it('getHealth: 200 { status: ok }', async () => {
        const res = await ctx.viaPrism('getHealth', call('GET', '/healthz'), 200, null);
        expect(res.body).toEqual({ status: 'ok' });
      });

      it('getReadiness: 200 { status: ready }', async () => {
        const res = await ctx.viaPrism('getReadiness', call('GET', '/readyz'), 200, null);
        expect(res.body).toEqual({ status: 'ready' });
      });

      // This server has METRICS_TOKEN set (prism.test.ts): the token is what opens /metrics.
      it('getMetrics: 401 without the METRICS_TOKEN, 200 in the text format with it', async () => {
        const refused = await ctx.viaPrism('getMetrics', call('GET', '/metrics'), 401, null);
        expect(refused.body).toEqual({ error: expect.stringMatching(/METRICS_TOKEN/) });
        const res = await ctx.viaPrism(
          'getMetrics',
          call('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }),
          200,
          null,
        );
        expect(res.text).toContain('# TYPE shortlink_redirect_responses_total counter');
      });

      // This server has TLS_ASK_TOKEN set (prism.test.ts): the token is what lets a front end ask.
      it('askCertificate: 401 without the TLS_ASK_TOKEN; with it, 200 for the short domain, 404 for another, 400 for none', async () => {
        const ask = (query: string) => call('GET', `/tls/ask?${query}`);
        const refused = await ctx.viaPrism('askCertificate', ask(`domain=${SHORT_HOST}`), 401, null);
        expect(refused.body).toEqual({ error: expect.stringMatching(/TLS_ASK_TOKEN/) });
        const yes = await ctx.viaPrism('askCertificate', ask(`domain=${SHORT_HOST}&token=${TLS_ASK_TOKEN}`), 200, null);
        expect(yes.body).toEqual({ domain: SHORT_HOST, kind: 'short' });
        const no = await ctx.viaPrism(
          'askCertificate',
          ask(`domain=elsewhere.example.net&token=${TLS_ASK_TOKEN}`),
          404,
          null,
        );
        expect(no.body.error).toMatch(/not a domain this service answers for/);
        // Prism refuses a request without the required domain itself (422): the server's answer is checked directly.
        const none = await ctx.directly('askCertificate', ask(`token=${TLS_ASK_TOKEN}`), 400, null);
        expect(none.body).toEqual({ error: 'domain is required', field: 'domain' });
      });
    });
  });
}
