// What the dashboard's bundled contract (generated/dashboard.json) promises before any request:
// its links are the public API's links (the same fields, checked the same way), every operation
// says who may call it, and every change is guarded.
import { describe, expect, it } from 'vitest';
import { ROLES } from '../../src/domain/access';
import { document as publicDocument, openDocument, operations as publicOperations } from '../support/fuzz-openapi';

const dashboard = openDocument('dashboard.json');
const schemas = dashboard.document.components.schemas;
const publicSchemas = publicDocument.components.schemas;
const UNSAFE = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
/** POSTs that change nothing: any role may send them. */
const READ_ONLY_POSTS = new Set(['previewPage', 'tryDashboardLinkRouting']);

describe("the dashboard's contract", () => {
  it("shows a link with exactly the fields of the API's Link, and the short URL", () => {
    const { shortUrl, ...fields } = schemas.DashboardLink.properties;
    expect(fields).toEqual(publicSchemas.Link.properties);
    expect(shortUrl.type).toBe('string');
    expect(schemas.DashboardLink.required).toEqual([...publicSchemas.Link.required, 'shortUrl']);
    expect(schemas.DashboardLink.additionalProperties).toBe(false);
  });

  it("takes a new link's fields as POST /api/v1/links defines them, and the preview fields as PATCH does", () => {
    const { previewTitle, previewDescription, previewImage, ...fields } = schemas.DashboardLinkCreate.properties;
    expect(fields).toEqual(publicSchemas.LinkCreate.properties);
    expect({ previewTitle, previewDescription, previewImage }).toEqual({
      previewTitle: publicSchemas.LinkUpdate.properties.previewTitle,
      previewDescription: publicSchemas.LinkUpdate.properties.previewDescription,
      previewImage: publicSchemas.LinkUpdate.properties.previewImage,
    });
    expect(schemas.DashboardLinkCreate.required).toEqual(publicSchemas.LinkCreate.required);
    // The link editor's PATCH is the API's PATCH body.
    expect(schemas.LinkUpdate).toEqual(publicSchemas.LinkUpdate);
  });

  it('reads conversions with exactly the query of GET /api/v1/conversions, and answers its summary as data', () => {
    const queryOf = (ops: Array<{ operationId: string; parameters: any[] }>, id: string) =>
      ops.find((o) => o.operationId === id)!.parameters.filter((p) => p.in === 'query');
    expect(queryOf(dashboard.operations(), 'getDashboardConversions')).toEqual(
      queryOf(publicOperations(), 'getConversionSummary'),
    );
    expect(schemas.DashboardConversions.properties.data).toEqual(
      publicSchemas.ConversionSummaryEnvelope.properties.data,
    );
    expect(schemas.DashboardConversions.required).toEqual(['data', 'series', 'names']);
  });

  it('names the roles of every operation; a workspace change is never open to an ANALYST', () => {
    const ops = dashboard.operations();
    expect(ops.length).toBeGreaterThanOrEqual(30);
    for (const op of ops) {
      const roles = op.op['x-roles'];
      expect(
        roles === 'any' ||
          roles === 'public' ||
          (Array.isArray(roles) && roles.every((r: string) => (ROLES as readonly string[]).includes(r))),
        op.operationId,
      ).toBe(true);
      expect(op.scopes === null, `${op.operationId}: public exactly when security is []`).toBe(roles === 'public');
      // previewPage and tryDashboardLinkRouting are POSTs that change nothing (one renders the draft
      // it is sent, the other says where a visit would go), so an ANALYST may use them.
      if (op.path.includes('{workspaceId}') && UNSAFE.has(op.method) && !READ_ONLY_POSTS.has(op.operationId)) {
        expect(Array.isArray(roles) && !roles.includes('ANALYST'), op.operationId).toBe(true);
      }
      // Every operation answers 401 unless public, and 403 when roles or forgery can refuse it.
      if (roles !== 'public') expect(op.responses.has(401), op.operationId).toBe(true);
      if (roles !== 'public' && UNSAFE.has(op.method)) expect(op.responses.has(403), op.operationId).toBe(true);
      if (op.path.includes('{workspaceId}')) expect(op.responses.has(404), op.operationId).toBe(true);
    }
    for (const id of READ_ONLY_POSTS) expect(ops.find((o) => o.operationId === id)!.op['x-roles']).toBe('any');
    // Only an OWNER changes roles.
    expect(ops.find((o) => o.operationId === 'updateMember')!.op['x-roles']).toEqual(['OWNER']);
  });

  // Every time a request carries is checked as one: a reader of the contract (Prism, a generated
  // client) must refuse "tomorrow" where the service does.
  it('says the format of every date and time a request carries', () => {
    const times = /(At|^from|^to|^since|^before|Start|End)$/;
    const unformatted: string[] = [];
    const visit = (schema: any, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
        const types = [property.type ?? []].flat();
        if (times.test(name) && types.includes('string') && !property.format) unformatted.push(`${where}.${name}`);
        visit(property, `${where}.${name}`);
      }
      for (const key of ['allOf', 'anyOf', 'oneOf']) {
        for (const [i, s] of (schema[key] ?? []).entries()) visit(s, `${where}.${key}[${i}]`);
      }
      if (schema.items) visit(schema.items, `${where}[]`);
    };
    for (const op of dashboard.operations()) {
      if (op.requestSchema) visit(op.requestSchema, op.operationId);
      // `before` is a delivery's id (the log's cursor), not a time.
      for (const p of op.parameters.filter((x) => times.test(x.name) && x.name !== 'before')) {
        const text = [p.schema.type].flat().includes('string');
        if (text && !p.schema.format) unformatted.push(`${op.operationId} ?${p.name}`);
      }
    }
    expect(unformatted).toEqual([]);
  });

  it('names the events a request may carry from the catalogues (an enum), never as any text', () => {
    const eventA = dashboard.document.components.schemas.WebhookEventA.enum;
    const eventB = dashboard.document.components.schemas.WebhookEventB.enum;
    const ops = Object.fromEntries(dashboard.operations().map((o) => [o.operationId, o]));
    const create = ops.createDashboardWebhookSubscription.requestSchema;
    const forms = create.oneOf.map((form: any) => [form.properties.variant.const, form.properties.events.items.enum]);
    expect(forms).toEqual([
      ['A', eventA],
      ['B', eventB],
    ]);
    expect(ops.updateDashboardWebhookSubscription.requestSchema.properties.events.items.enum).toEqual(eventA);
    const test = ops.sendDashboardWebhookTest.requestSchema.properties.event;
    expect(test.anyOf.map((s: any) => s.enum)).toEqual([eventA, eventB]);
    const filter = ops.listDashboardWebhookDeliveries.parameters.find((p) => p.name === 'event');
    expect(filter.schema.anyOf.map((s: any) => s.enum)).toEqual([eventA, eventB]);
  });

  it("takes a report's params in its kind's form, and a goal's value target with its currency", () => {
    const ops = Object.fromEntries(dashboard.operations().map((o) => [o.operationId, o]));
    const report = ops.createDashboardReport.requestSchema;
    expect(report.discriminator.propertyName).toBe('kind');
    expect(report.oneOf.map((form: any) => [form.properties.kind.const, form.properties.params.required])).toEqual([
      ['CONVERSIONS', ['window']],
      ['GOAL', ['window', 'goalId']],
      ['LINK', ['window', 'linkId']],
      ['PAGE', ['window', 'pageId']],
    ]);
    // Every kind names the others' params to refuse them with its own message, not as unknown.
    const every = new Set(report.oneOf.flatMap((form: any) => Object.keys(form.properties.params.properties)));
    for (const form of report.oneOf) {
      expect(Object.keys(form.properties.params.properties).sort(), form.properties.kind.const).toEqual(
        [...every].sort(),
      );
    }
    const together = { targetValueMinor: ['targetCurrency'], targetCurrency: ['targetValueMinor'] };
    expect(ops.createDashboardGoal.requestSchema.dependentRequired).toEqual(together);
    expect(ops.bulkLinks.requestSchema.then.required).toEqual(['tagId']);
  });

  it('is served under /app/api, opened by the session cookie', () => {
    expect(new URL(dashboard.document.servers[0].url).pathname).toBe('/app/api');
    expect(dashboard.document.components.securitySchemes.session).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'sl_session',
    });
  });
});
