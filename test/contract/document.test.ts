// What the bundled OpenAPI document (generated/openapi.json) tells a client and a generated
// client before any request is sent: that it refuses what the service refuses, and where the
// values a request needs come from.
import { describe, expect, it } from 'vitest';
import { eventCatalog } from '../../src/webhooks/catalog';
import { document, operations, validatorAt } from '../support/fuzz-openapi';
import { runCli } from '../support/cli';

const schemas = document.components.schemas;
const eventsItems = (schema: string, pointer: 'request' | 'response') => {
  const items = schemas[schema].properties.events.items;
  expect(items.$ref, `${schema} (${pointer}) names its event enum`).toMatch(
    /^#\/components\/schemas\/WebhookEvent[AB]$/,
  );
  return schemas[items.$ref.split('/').pop()];
};

describe('the OpenAPI document', () => {
  it("enumerates each variant's catalogue of event names (the retired ones left out) wherever events are named", () => {
    const names = { A: eventCatalog('A').events.map((e) => e.name), B: eventCatalog('B').events.map((e) => e.name) };
    expect(names.A).toHaveLength(9);
    for (const s of ['WebhookCreateA', 'WebhookUpdateA']) expect(eventsItems(s, 'request').enum).toEqual(names.A);
    for (const s of ['WebhookSubscriptionA', 'WebhookSubscriptionACreated'])
      expect(eventsItems(s, 'response').enum).toEqual(names.A);
    expect(eventsItems('WebhookCreateB', 'request').enum).toEqual(names.B);
    expect(eventsItems('WebhookSubscriptionB', 'response').enum).toEqual(names.B);
    for (const retired of ['click.recorded', 'subscription.updated']) {
      expect(eventCatalog('A').isRetired(retired)).toBe(true);
      expect(schemas.WebhookEventA.enum).not.toContain(retired);
      expect(schemas.WebhookEventA.description).toContain(`\`${retired}\``);
    }
    expect(document.paths['/api/webhooks'].post.description).toMatch(
      /retired name\s+\(`click\.recorded`, `subscription\.updated`\) gives 400 naming it/,
    );
  });

  it('holds customName to eventType custom with if/then/else', () => {
    const valid = validatorAt('#/components/schemas/ConversionCreate');
    expect(valid({ eventType: 'custom', customName: 'newsletter' })).toBe(true);
    expect(valid({ eventType: 'purchase' })).toBe(true);
    expect(valid({ eventType: 'custom' })).toBe(false);
    expect(valid({ eventType: 'purchase', customName: 'newsletter' })).toBe(false);
    expect(valid({ eventType: 'signup', customName: 'x', linkId: 'lnk_1' })).toBe(false);
  });

  it('gives every path parameter minLength 1: no operation takes an empty id', () => {
    const pathParams = operations().flatMap((op) =>
      op.parameters
        .filter((p) => p.in === 'path')
        .map((p) => ({ op: op.operationId, name: p.name, minLength: p.schema.minLength })),
    );
    expect(pathParams.length).toBeGreaterThanOrEqual(9);
    for (const p of pathParams) expect(p.minLength, `${p.op} {${p.name}}`).toBeGreaterThanOrEqual(1);
  });

  it("says where Variant A's workspaceId is found, naming a command the command line has", async () => {
    const createWebhook = document.paths['/api/webhooks'].post;
    const workspaceId = schemas.WebhookCreateA.properties.workspaceId;
    for (const text of [createWebhook.description, workspaceId.description]) {
      expect(text).toContain('`shortlink workspace list`');
      expect(text).toMatch(/dashboard's workspace settings/);
    }
    // The command exists: an unknown one fails with a usage error listing the known ones.
    const unknown = await runCli(['no-such-command'], { DATABASE_URL: 'sqlite::memory:' });
    expect(unknown.stderr).toMatch(/commands: .*\bworkspace list\b/);
  });
});
