// The running server held to the OpenAPI document by Stoplight Prism, on every operation.
//
// Approach: per database engine, one real HTTPS server (test/support/server.ts) and one
// `prism proxy generated/openapi.json https://127.0.0.1:<port> --errors` child process in front of
// it (test/support/prism.ts; the child alone trusts the test certificate via NODE_EXTRA_CA_CERTS).
// Every request goes through the proxy where it can, and for each one we assert
//   1. Prism routed it to the operation named, reported no violation: no `sl-violations` header
//      (errors AND warnings, e.g. an undeclared 4xx status, which --errors lets through with only
//      the header), no Prism-made problem+json (with --errors a response error becomes Prism's
//      500 #VIOLATIONS), and the server's own X-Service-Request-Id is present wherever the
//      document declares it (so the server, not Prism, answered; visitor pages declare none and
//      are recognised by their content); and
//   2. the status is the one the interface gives for that case, and the body says what it should.
//
// Requests that themselves violate the document (page=0, an unknown field, a wrong type or enum
// value, a missing body or key, malformed JSON, ...) are never forwarded by `prism proxy
// --errors`: Prism answers 422 #UNPROCESSABLE_ENTITY (401 #UNAUTHORIZED without a Bearer header;
// 400 invalid_json for malformed JSON) itself. Running a second proxy with
// --validate-request=false would not help for the missing key (security is always checked), so
// for those cases the test (a) asserts that Prism refuses the request without reaching the
// server, which documents that the document itself forbids it, then (b) sends the same request
// straight to the server and validates the server's answer with Prism's own router and response
// validator in-process (directViolations), so both paths use the same validator. Two kinds of
// answer cannot travel through the proxy and are checked directly the same way: redirects (its
// forwarder follows them) and the PNG QR image (it re-encodes bodies as text); see
// ./prism-detection.test.ts.
//
// The suites, one module per area under ./prism/: access.ts (401, 403, 429 of every operation
// that takes a key), links.ts, conversions.ts, webhooks.ts, workspace-objects.ts (tags, QR codes,
// domains), visitors.ts (short links, password
// form, QR codes, probes) and deployment.ts (a second server and proxy: plain HTTP behind a proxy,
// features and webhook variants switched off, then a database that cannot be read). The last test
// fails when a status the document declares for any operation was never exercised, the few that
// cannot be produced from outside aside (listed, with the reason, in that test).
//
// Known server/spec mismatches, if any, are `it.fails` tests named "KNOWN MISMATCH" holding the
// single assertion the interface demands; once the server (or the document) is fixed they start
// failing and must become plain `it`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '../../src/db/repos/api-keys';
import { testEngines } from '../support/databases';
import { ContractCoverage, contractChecks, startContractTarget, type ContractChecks } from '../support/prism';
import { seedWorkspace } from '../support/seed';
import type { RequestOptions } from '../support/server';
import { accessSuites } from './prism/access';
import { API_SCOPES, METRICS_TOKEN, SHORT_HOST, TLS_ASK_TOKEN, type Call, type ContractContext } from './prism/context';
import { conversionSuites } from './prism/conversions';
import { deploymentSuites } from './prism/deployment';
import { linkSuites } from './prism/links';
import { linkBulkSuites } from './prism/links-bulk';
import { routingSuites } from './prism/routing';
import { visitorSuites } from './prism/visitors';
import { webhookSuites } from './prism/webhooks';
import { workspaceObjectSuites } from './prism/workspace-objects';

describe.each(testEngines())('OpenAPI contract checked by a Prism proxy on %s', (engine) => {
  const coverage = new ContractCoverage();
  let checks: ContractChecks;
  // The key to send: `owner.key` unless one is given, none for null.
  const keyed = (call: Call, key: string | null | undefined): Call => {
    const opts: RequestOptions = { ...call.opts };
    const k = key === undefined ? ctx.owner.key : key;
    if (k) opts.key = k;
    return { ...call, opts };
  };
  const ctx: ContractContext = {
    engine,
    coverage,
    main: undefined!,
    owner: undefined!,
    cacheFails: false,
    knex: () => ctx.main.server.services.db.knex,
    viaPrism: (op, call, status, key) => checks.viaPrism(op, keyed(call, key), status),
    refusedByPrism: (op, call, prismStatus, status, key) =>
      checks.refusedByPrism(op, keyed(call, key), prismStatus, status),
    directly: (op, call, status, key) => checks.directly(op, keyed(call, key), status),
    async freshKey(scopes = API_SCOPES, who = ctx.owner) {
      return (await createKey(ctx.knex(), who.workspaceId, who.userId, scopes, null)).key;
    },
    async makeLink(body = { url: 'https://example.com/made' }, key = ctx.owner.key) {
      const res = await ctx.main.server.request('POST', '/api/v1/links', { key, body });
      expect(res.status, res.text).toBe(201);
      return res.body.data;
    },
  };

  beforeAll(async () => {
    ctx.main = await startContractTarget(engine, {
      env: { SHORT_DOMAIN: SHORT_HOST, METRICS_TOKEN, TLS_ASK_TOKEN },
      // The redirect cache, unless a test makes the API's cache step fail (207).
      linkCache: {
        invalidate: (keys) =>
          ctx.cacheFails
            ? Promise.reject(new Error('redirect cache unavailable'))
            : ctx.main.server.redirects.invalidate(keys),
      },
    });
    checks = contractChecks(() => ctx.main, coverage);
    ctx.owner = await seedWorkspace(ctx.knex(), { scopes: API_SCOPES });
  });
  // A fresh key per test: each key has its own 60-requests-a-minute budget.
  beforeEach(async () => {
    if (ctx.main) ctx.owner = { ...ctx.owner, key: await ctx.freshKey() };
  });
  afterAll(async () => {
    await ctx.main?.stop();
  });

  accessSuites(ctx);
  linkSuites(ctx);
  linkBulkSuites(ctx);
  routingSuites(ctx);
  conversionSuites(ctx);
  webhookSuites(ctx);
  workspaceObjectSuites(ctx);
  visitorSuites(ctx);
  deploymentSuites(ctx);

  it('exercised every status the document declares, for every operation (the excused ones aside)', () => {
    const excused: Record<string, number[]> = {
      // Nothing a client sends makes the server fail. A lost database does: listLinks' 500 is
      // exercised that way (./prism/deployment.ts); every other operation fails through the
      // same error handler.
      '*': [500],
    };
    expect(coverage.missing(excused)).toEqual([]);
  });
});
