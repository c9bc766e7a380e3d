// The AsyncAPI documents are the webhook contract: this test holds them to the
// interface (spec/service-interface.md, "Events") and to the closed-payload rule.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Parser, fromFile } from '@asyncapi/parser';
import type { AsyncAPIDocumentInterface, Diagnostic } from '@asyncapi/parser';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { INTERFACE_EVENTS } from '../support/interface-events';

// ajv-formats is CommonJS; depending on the loader its default import is the plugin
// itself or the module object holding it.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

type JsonSchema = Record<string, unknown>;

interface VariantContract {
  file: string;
  // The interface's event list: the documents must match it.
  events: string[];
  envelopeKeys: string[];
  eventKey: 'event' | 'type';
  retired: string[];
}

const variants: Record<'A' | 'B', VariantContract> = {
  A: {
    file: 'variant-a.yaml',
    events: [...INTERFACE_EVENTS.A],
    envelopeKeys: ['event', 'timestamp', 'data'],
    eventKey: 'event',
    retired: ['click.recorded', 'subscription.updated'],
  },
  B: {
    file: 'variant-b.yaml',
    events: [...INTERFACE_EVENTS.B],
    envelopeKeys: ['id', 'type', 'timestamp', 'data'],
    eventKey: 'type',
    retired: [],
  },
};

// Data fields the interface fixes for some events; the rest are the documents' choice.
const fixedDataFields: Record<'A' | 'B', Record<string, string[]>> = {
  A: {
    'link.created': ['id', 'workspaceId', 'slug', 'domain', 'destinationUrl', 'title'],
    'report.shared': ['workspaceId', 'reportId', 'title', 'visibility'],
  },
  B: {
    'link.clicked': ['link_id', 'slug', 'url', 'short_url', 'referrer', 'country', 'city', 'device', 'browser', 'os'],
    'link.created': ['link_id', 'slug', 'url', 'short_url', 'domain', 'tags', 'created_by'],
    'page.viewed': ['page_id', 'slug', 'referrer', 'country', 'device', 'browser'],
  },
};

const ERROR = 0;
const WARNING = 1;

function documentPath(file: string): string {
  return fileURLToPath(new URL(`../../asyncapi/${file}`, import.meta.url));
}

// The parser tags every schema with x-parser-* bookkeeping keys; Ajv (strict) must not see them.
function withoutParserKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutParserKeys) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !key.startsWith('x-parser-'))
        .map(([key, inner]) => [key, withoutParserKeys(inner)]),
    ) as T;
  }
  return value;
}

function typesOf(schema: JsonSchema): string[] {
  const type = schema.type;
  if (Array.isArray(type)) return type as string[];
  return typeof type === 'string' ? [type] : [];
}

/** Every object schema reachable from `schema`, with a path for messages. */
function objectSchemas(schema: JsonSchema, path = '$'): Array<{ path: string; schema: JsonSchema }> {
  const found: Array<{ path: string; schema: JsonSchema }> = [];
  if (typesOf(schema).includes('object') || schema.properties) found.push({ path, schema });
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, inner] of Object.entries(properties)) found.push(...objectSchemas(inner, `${path}.${name}`));
  if (schema.items && typeof schema.items === 'object') {
    found.push(...objectSchemas(schema.items as JsonSchema, `${path}[]`));
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = (schema[keyword] ?? []) as JsonSchema[];
    branches.forEach((branch, i) => found.push(...objectSchemas(branch, `${path}/${keyword}/${i}`)));
  }
  return found;
}

function propertyNames(schema: JsonSchema): string[] {
  return objectSchemas(schema).flatMap(({ schema: s }) => Object.keys((s.properties ?? {}) as object));
}

/** ip, ipAddress, ip_address, clientIp, remote_addr ... */
function looksLikeIpAddress(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.includes('ip') || /ip_?addr|remote_?addr/i.test(name);
}

interface ParsedMessage {
  name: string;
  payload: JsonSchema;
  headers: JsonSchema | undefined;
  examples: Array<{ payload: unknown; headers: unknown }>;
}

for (const [variantName, contract] of Object.entries(variants) as Array<['A' | 'B', VariantContract]>) {
  describe(`AsyncAPI document, Variant ${variantName} (${contract.file})`, () => {
    let document: AsyncAPIDocumentInterface | undefined;
    let diagnostics: Diagnostic[] = [];
    let messages: ParsedMessage[] = [];
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv);

    beforeAll(async () => {
      const parser = new Parser();
      ({ document, diagnostics } = await fromFile(parser, documentPath(contract.file)).parse());
      messages = (document?.allMessages().all() ?? []).map((message) => ({
        name: message.name() ?? '',
        payload: withoutParserKeys((message.payload()?.json() ?? {}) as JsonSchema),
        headers: message.hasHeaders() ? withoutParserKeys(message.headers()!.json() as JsonSchema) : undefined,
        examples: message
          .examples()
          .all()
          .map((example) => ({ payload: example.payload(), headers: example.headers() })),
      }));
    });

    function compile(schema: JsonSchema): ValidateFunction {
      return ajv.compile(schema);
    }

    it('parses as AsyncAPI 3.0 without errors or warnings', () => {
      const problems = diagnostics
        .filter((d) => d.severity === ERROR || d.severity === WARNING)
        .map((d) => `${d.severity === ERROR ? 'error' : 'warning'} ${d.code} at ${d.path.join('/')}: ${d.message}`);
      expect(problems).toEqual([]);
      expect(document).toBeDefined();
      expect(document!.version()).toBe('3.0.0');
    });

    it("has exactly the interface's event names as messages", () => {
      expect(messages.map((m) => m.name).sort()).toEqual([...contract.events].sort());
    });

    it('sends every message from a send operation', () => {
      const sent = new Set<string>();
      for (const operation of document!.operations().all()) {
        expect(operation.action()).toBe('send');
        for (const message of operation.messages().all()) sent.add(message.name() ?? '');
      }
      expect([...sent].sort()).toEqual([...contract.events].sort());
    });

    it('lists the retired event names at the root, none of them in the catalogue', () => {
      const retired = document!.extensions().get('x-retired-events')?.value() as Array<{ name: string }> | undefined;
      expect(retired).toBeDefined();
      expect(retired!.map((r) => r.name).sort()).toEqual([...contract.retired].sort());
      for (const name of contract.retired) expect(contract.events).not.toContain(name);
    });

    it(`uses the envelope { ${contract.envelopeKeys.join(', ')} } with the event name as a constant`, () => {
      for (const message of messages) {
        const properties = message.payload.properties as Record<string, JsonSchema>;
        expect(Object.keys(properties).sort(), message.name).toEqual([...contract.envelopeKeys].sort());
        expect(properties[contract.eventKey].const, message.name).toBe(message.name);
        expect(properties.timestamp.format, message.name).toBe('date-time');
        expect(typesOf(properties.data), message.name).toContain('object');
      }
    });

    it('closes every object schema and requires all of its properties', () => {
      for (const message of messages) {
        for (const { path, schema } of objectSchemas(message.payload)) {
          const where = `${message.name} ${path}`;
          expect(schema.additionalProperties, where).toBe(false);
          const declared = Object.keys((schema.properties ?? {}) as object).sort();
          expect(declared.length, where).toBeGreaterThan(0);
          expect([...((schema.required ?? []) as string[])].sort(), where).toEqual(declared);
        }
      }
    });

    it('carries the data fields the interface fixes', () => {
      for (const [event, fields] of Object.entries(fixedDataFields[variantName])) {
        const message = messages.find((m) => m.name === event);
        expect(message, event).toBeDefined();
        const data = (message!.payload.properties as Record<string, JsonSchema>).data;
        expect(Object.keys(data.properties as object).sort(), event).toEqual([...fields].sort());
      }
    });

    it('names no payload property like an IP address', () => {
      for (const message of messages) {
        const suspicious = propertyNames(message.payload).filter(looksLikeIpAddress);
        expect(suspicious, message.name).toEqual([]);
      }
      expect(['ip', 'ipAddress', 'ip_address', 'clientIp', 'remote_addr'].every(looksLikeIpAddress)).toBe(true);
      expect(['description', 'shipping', 'zip'].some(looksLikeIpAddress)).toBe(false);
    });

    it('gives every message an example that validates against its payload and headers', () => {
      for (const message of messages) {
        expect(message.examples.length, message.name).toBeGreaterThan(0);
        const validatePayload = compile(message.payload);
        for (const example of message.examples) {
          expect(validatePayload(example.payload), `${message.name}: ${ajv.errorsText(validatePayload.errors)}`).toBe(
            true,
          );
          expect((example.payload as Record<string, unknown>)[contract.eventKey], message.name).toBe(message.name);
          if (message.headers) {
            const validateHeaders = compile(message.headers);
            expect(
              validateHeaders(example.headers),
              `${message.name} headers: ${ajv.errorsText(validateHeaders.errors)}`,
            ).toBe(true);
          }
        }
      }
    });

    // "Test events": a sample is the first documented example, and receivers are told which of
    // its signed values no real event carries.
    // (Variant B's mark is the sample's own event id, evt_test_…: test/webhooks/delivery-log.test.ts.)
    if (variantName === 'A') {
      it('gives every message a first example whose data.workspaceId is ws_91c3e7a2, as "Test events" promises', () => {
        for (const message of messages) {
          expect(
            (message.examples[0].payload as { data: Record<string, unknown> }).data.workspaceId,
            message.name,
          ).toBe('ws_91c3e7a2');
        }
      });
    }

    it('rejects an example with an extra key in data or in the envelope', () => {
      for (const message of messages) {
        const validatePayload = compile(message.payload);
        for (const example of message.examples) {
          const payload = example.payload as { data: Record<string, unknown> };
          const extraData = { ...payload, data: { ...payload.data, ipAddress: '203.0.113.7' } };
          expect(validatePayload(extraData), `${message.name} with an extra data key`).toBe(false);
          const extraEnvelope = { ...payload, deliveryId: 'dlv_1' };
          expect(validatePayload(extraEnvelope), `${message.name} with an extra envelope key`).toBe(false);
        }
      }
    });

    it('rejects an example missing a data field', () => {
      for (const message of messages) {
        const validatePayload = compile(message.payload);
        const payload = message.examples[0].payload as { data: Record<string, unknown> };
        for (const field of Object.keys(payload.data)) {
          const { [field]: _dropped, ...rest } = payload.data;
          expect(validatePayload({ ...payload, data: rest }), `${message.name} without data.${field}`).toBe(false);
        }
      }
    });
  });
}
