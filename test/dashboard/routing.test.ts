// The dashboard API's routes through HTTPS on every engine: where the contract's paths overlap,
// a fixed path wins over a template for every method. `.../links/export`, `.../links/bulk` and
// `.../links/import` also fit `.../links/{linkId}`: a method they lack is their 405 with Allow,
// never a read, change or delete of the link "export"; so is `/account/passkeys/registration`.
import { describe, expect, it } from 'vitest';
import { testEngines } from '../support/databases';
import { serverWithTeam } from '../support/dashboard';
import { openDocument } from '../support/fuzz-openapi';
import { shadowedPaths } from '../support/routes';

const dashboard = openDocument('dashboard.json');
const shadowed = shadowedPaths(dashboard.document);

describe.each(testEngines())('dashboard routes on %s', (engine) => {
  const fixture = serverWithTeam(engine);

  it('has fixed paths that a template also fits (the test below covers each)', () => {
    expect(shadowed.map((s) => `${s.path} ${s.methods.join(',')}`).sort()).toEqual([
      // Also fits `/account/passkeys/{passkeyId}`: renaming or removing a passkey called
      // "registration" is never what a PATCH or DELETE there means.
      '/account/passkeys/registration DELETE,PATCH',
      // DELETE is the only method of both `/sessions/others` and `/sessions/{sessionId}`: nothing
      // for the fixed path to refuse, and the fixed path wins (test/dashboard/own-sessions.test.ts).
      '/sessions/others ',
      '/workspaces/{workspaceId}/links/bulk GET,DELETE,PATCH',
      '/workspaces/{workspaceId}/links/export DELETE,PATCH',
      '/workspaces/{workspaceId}/links/import GET,DELETE,PATCH',
    ]);
  });

  it.each(shadowed.flatMap((s) => s.methods.map((method) => [method, s.path, s.allow] as const)))(
    'answers %s %s 405 with Allow naming its own methods, a fixed path winning over a template',
    async (method, template, allow) => {
      const path = template.replace('{workspaceId}', fixture.team.workspaceId);
      const res = await fixture.team.owner.request(method, path, method === 'GET' ? {} : { body: {} });
      expect(res.status, res.text).toBe(405);
      expect(res.headers.allow).toBe(allow.join(', '));
      expect(res.body).toEqual({ error: `Method ${method} is not allowed on ${path}` });
    },
  );

  it('still answers the methods each path has, and the template for every other segment', async () => {
    const { workspaceId, owner } = fixture.team;
    const base = `/workspaces/${workspaceId}`;
    expect((await owner.request('GET', `${base}/links/export`)).status).toBe(200);
    const body = { linkIds: ['lnk_nowhere'], action: 'disable' };
    const bulk = await owner.request('POST', `${base}/links/bulk`, { body });
    expect(bulk.status).toBe(200);
    expect((await owner.request('GET', `${base}/links/exports`)).body).toEqual({ error: 'Link not found' });
    expect((await owner.request('PATCH', `${base}/links/lnk_nowhere`, { body: { title: 'x' } })).status).toBe(404);
  });
});
