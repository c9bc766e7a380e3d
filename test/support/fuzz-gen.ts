// Schema-driven fast-check arbitraries for the fuzzer: valid values from a JSON Schema (with
// per-property hints for sensible values), and the subtly invalid ones: wrong types, boundary
// numbers and lengths, enum and format violations, unicode torture, malformed bodies.
import fc from 'fast-check';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

/** A reference to an object that exists (or existed) when the request is sent: pool[pick % size][field]. */
export class Ref {
  constructor(
    readonly pool: string,
    readonly pick: number,
    readonly field = 'id',
  ) {}
}
export const ref = (pool: string, field = 'id') => fc.nat({ max: 1_000_000 }).map((n) => new Ref(pool, n, field));

export type Hint = (name: string, schema: any) => fc.Arbitrary<unknown> | undefined;

// Printable text: ASCII mostly, some Latin, Greek, CJK and emoji; no controls, no surrogates.
const printableChar = fc
  .oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0x24f }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x370, max: 0x3ff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x4e00, max: 0x4fff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x1f600, max: 0x1f64f }) },
  )
  .map((cp) => String.fromCodePoint(cp));
/** Printable text of minLength..maxLength code points (JSON Schema lengths count code points). */
export const text = (minLength = 0, maxLength = 40) => fc.string({ unit: printableChar, minLength, maxLength });

const DAY = 86_400_000;
export function isoWithOffset(ms: number, offsetMinutes: number): string {
  if (offsetMinutes === 0) return new Date(ms).toISOString();
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
/** RFC 3339 date-times between two instants, in UTC or with an offset, with or without milliseconds. */
export const isoBetween = (min: number, max: number) =>
  fc
    .tuple(fc.integer({ min, max }), fc.constantFrom(0, 0, 0, 60, -300, 330, 840, -720), fc.boolean())
    .map(([ms, off, millis]) => {
      const s = isoWithOffset(ms, off);
      return millis ? s : s.replace(/\.\d{3}/, '');
    });
export const isoDate = isoBetween(Date.UTC(2020, 0, 1), Date.UTC(2035, 0, 1));

/** A valid value for a JSON Schema (2020-12 subset the document uses). */
export function arbFor(schema: any, hint: Hint = () => undefined, name = ''): fc.Arbitrary<unknown> {
  const hinted = hint(name, schema);
  if (hinted) return hinted;
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.oneOf)) return fc.oneof(...schema.oneOf.map((s: any) => arbFor(s, hint, name)));
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((s: any) => arbFor(s, hint, name)));
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['string'];
  const arbs = types.map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
        const max =
          schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : min + 100_000);
        return fc.integer({ min, max });
      }
      case 'number':
        return fc.double({
          min: schema.minimum ?? -1e6,
          max: schema.maximum ?? 1e6,
          noNaN: true,
          noDefaultInfinity: true,
        });
      case 'string':
        if (schema.format === 'date-time') return isoDate;
        if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
        return text(schema.minLength ?? 0, Math.min(schema.maxLength ?? 40, 40));
      case 'array':
        return fc.array(arbFor(schema.items ?? {}, hint, `${name}[]`), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
        });
      case 'object': {
        const props = schema.properties ?? {};
        if (!Object.keys(props).length) {
          return fc.dictionary(text(1, 12), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
        }
        const model = Object.fromEntries(Object.entries<any>(props).map(([k, s]) => [k, arbFor(s, hint, k)]));
        return fc.record(model, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<unknown>;
      }
      default:
        throw new Error(`no arbitrary for type ${t}`);
    }
  });
  return arbs.length === 1 ? arbs[0] : fc.oneof(...arbs);
}

// ---- validity against a schema, as the server's validator sees it ------------------------------

const strictAjv = addFormats(new Ajv2020({ strict: false, allErrors: false, validateSchema: false }));
const coercingAjv = addFormats(
  new Ajv2020({ strict: false, allErrors: false, validateSchema: false, coerceTypes: true }),
);
const compiled = new WeakMap<object, ValidateFunction>();
const compiledCoercing = new WeakMap<object, ValidateFunction>();
/** Whether a body value is valid against the (inlined) schema. */
export function validAgainst(schema: any, value: unknown): boolean {
  let v = compiled.get(schema);
  if (!v) {
    v = strictAjv.compile(schema);
    compiled.set(schema, v);
  }
  return v(structuredClone(value)) as boolean;
}
/** Whether a query/header parameter value is valid, with the type coercion parameters get. */
export function paramValid(schema: any, value: unknown): boolean {
  let v = compiledCoercing.get(schema);
  if (!v) {
    v = coercingAjv.compile({ type: 'object', properties: { p: schema } });
    compiledCoercing.set(schema, v);
  }
  return v({ p: structuredClone(value) }) as boolean;
}

// ---- invalid and edge values ------------------------------------------------------------------

const typesOf = (schema: any): string[] =>
  Array.isArray(schema.type)
    ? schema.type
    : schema.type
      ? [schema.type]
      : schema.enum
        ? ['string']
        : schema.oneOf
          ? ['object', 'null']
          : [];

/** Values of a JSON type the property does not allow. */
export function wrongTypeValues(schema: any): unknown[] {
  const candidates: unknown[] = [123, 1.5, -7, true, false, 'a string', '', null, [], ['x'], {}, { nested: true }, 0];
  return candidates.filter((v) => !validAgainst(schema, v));
}

/** Strings that look like numbers but are not JSON numbers, and numbers at the edges. */
export const NUMBERISH_STRINGS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '1e21',
  '0x10',
  '1.0',
  ' 1',
  '1 ',
  '١٢',
  '+1',
  '-0',
  '',
  '9'.repeat(400),
];
export const EDGE_NUMBERS = [
  0,
  -1,
  1,
  1.5,
  1e21,
  -1e21,
  2 ** 31,
  2 ** 31 - 1,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 63,
  Number.MAX_VALUE,
  5e-324,
  -0,
];

/** Boundary values of one property (both sides of each limit); validity is decided by the schema. */
export function boundaryValues(schema: any, filler: (n: number) => string): unknown[] {
  const out: unknown[] = [];
  const types = typesOf(schema);
  if (types.includes('string') && !schema.enum && schema.format !== 'date-time') {
    if (schema.maxLength !== undefined) out.push(filler(schema.maxLength), filler(schema.maxLength + 1));
    if (schema.minLength !== undefined) out.push(filler(schema.minLength), filler(Math.max(0, schema.minLength - 1)));
    out.push('', filler(3000));
    // maxLength counts code points: emoji are 2 UTF-16 units each.
    if (schema.maxLength !== undefined) out.push('😀'.repeat(schema.maxLength), '😀'.repeat(schema.maxLength + 1));
  }
  if (types.includes('integer') || types.includes('number')) {
    out.push(...EDGE_NUMBERS);
    if (schema.minimum !== undefined) out.push(schema.minimum, schema.minimum - 1, schema.minimum - 0.5);
    if (schema.maximum !== undefined) out.push(schema.maximum, schema.maximum + 1, schema.maximum + 0.5);
    out.push(...NUMBERISH_STRINGS.slice(0, 6));
  }
  if (types.includes('array')) {
    const item = schema.items?.type === 'string' ? 'x' : 1;
    if (schema.maxItems !== undefined)
      out.push(Array(schema.maxItems).fill(item), Array(schema.maxItems + 1).fill(item));
    if (schema.minItems !== undefined) out.push(Array(Math.max(0, schema.minItems - 1)).fill(item));
    out.push([1, 2], [null], [[]], [{}]);
  }
  return out;
}

export function enumViolations(schema: any): unknown[] {
  const values: unknown[] = schema.enum ?? [];
  const strings = values.filter((v): v is string => typeof v === 'string');
  return [
    'SOMETIMES',
    ...strings
      .slice(0, 2)
      .flatMap((v) => [v.toLowerCase(), `${v} `, v.toUpperCase() === v ? v.slice(0, -1) : v.toUpperCase()]),
  ].filter((v) => !values.includes(v));
}

export const BAD_DATE_TIMES = [
  'tomorrow',
  '2025-13-01T00:00:00Z',
  '2025-02-30T10:00:00Z',
  '2025-01-01',
  '2025-01-01T25:00:00Z',
  '2025-01-01T00:00:00',
  '1e21',
  '0',
  '',
  '2025-01-01T00:00:00+24:00',
  '+275760-09-13T00:00:00.000Z',
  '2025-01-01T00:00:00.000Zjunk',
  '９９９９-01-01T00:00:00Z',
];
/** Date-times the format accepts whose meaning is an edge: far years, leap seconds, odd offsets. */
export const EDGE_DATE_TIMES = [
  '1970-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '2016-12-31T23:59:60Z',
  '2025-06-30T23:59:60+00:00',
  '2025-01-01t00:00:00z',
  '2025-01-01 00:00:00Z',
  '2025-01-01T00:00:00.123456789Z',
  '2025-01-01T00:00:00+14:00',
  '2025-01-01T00:00:00-23:59',
];

/** Unicode that breaks naive code: RTL overrides, emoji sequences, NUL, lone surrogates, BOM. */
export const UNICODE_TORTURE = [
  '\u202Eevil\u202C',
  'שלום עולם',
  'مرحبا',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  'a\u0000b',
  '\u0000',
  '\uD800',
  'x\uDFFFy',
  '\uDBFF\uDFFF',
  '\uFEFFbom',
  'e\u0301\u0301\u0301',
  'İıẞß',
  '\u200B\u200D\u2060',
  '\u2028\u2029',
  '𝕳𝖊𝖑𝖑𝖔',
  '\u0007\u001b[31m',
  '%00',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as text.
  '${7*7}{{7*7}}',
  "'; DROP TABLE links; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'ＡＢＣ',
  '\\u0000',
  `${'a'.repeat(10)}\u0000`,
];

/** Bodies that are not JSON, or not a JSON object. */
export const MALFORMED_BODIES: Array<[string, string | Buffer]> = [
  ['truncated', '{"url": "https://example.com"'],
  ['trailing-comma', '{"url": "https://example.com",}'],
  ['single-quotes', "{'url': 'https://example.com'}"],
  ['nan-literal', '{"clickLimit": NaN}'],
  ['comment', '{"url": "https://example.com" /* c */}'],
  ['invalid-utf8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ['garbage', 'this is not json'],
  ['lone-brace', '{'],
  ['xml', '<link><url>https://example.com</url></link>'],
  ['unquoted-key', '{url: "https://example.com"}'],
  ['control-char-in-string', '{"title": "a\u0001b"}'],
  ['bad-escape', '{"title": "\\x41"}'],
  ['bad-unicode-escape', '{"title": "\\uZZZZ"}'],
  ['two-documents', '{}{}'],
  ['nul-bytes', Buffer.from([0x7b, 0x00, 0x7d])],
];
export const NON_OBJECT_BODIES: Array<[string, string]> = [
  ['null', 'null'],
  ['array', '[]'],
  ['array-of-object', '[{"url":"https://example.com"}]'],
  ['string', '"https://example.com"'],
  ['number', '42'],
  ['true', 'true'],
];

/** Path segments that are not ids: encodings, traversal, overlong, invalid percent-escapes. */
export const WEIRD_SEGMENTS = [
  '%00',
  '%E2%80%AE',
  '%F0%9F%98%80',
  '%ZZ',
  '%C0%AF',
  '%',
  '%25',
  '..',
  '%2E%2E',
  '%2F',
  'a%2Fb',
  '%20',
  'null',
  'undefined',
  '0',
  '-1',
  '1e21',
  'NaN',
  'a'.repeat(3000),
  `lnk_${'z'.repeat(20)}`,
  '%EF%BF%BF',
  '%ED%A0%80',
  "'",
  '%22',
  '%3Cscript%3E',
  '__proto__',
  'constructor',
  '%u0000',
  '%0A',
  '%0D%0ASet-Cookie:%20x=1',
];

/** Authorization header values that are not a usable Bearer key. */
export function malformedAuthorizations(validKey: string): Array<[string, string]> {
  const hex = validKey.slice(3);
  return [
    ['bearer-only', 'Bearer'],
    ['bearer-space', 'Bearer '],
    ['basic', 'Basic dXNlcjpwYXNz'],
    ['short-key', 'Bearer mk_123'],
    ['upper-prefix', `Bearer MK_${hex}`],
    ['upper-hex', `Bearer mk_${hex.toUpperCase()}`],
    ['63-hex', `Bearer mk_${hex.slice(1)}`],
    ['65-hex', `Bearer mk_${hex}0`],
    ['two-tokens', `Bearer mk_${hex} mk_${hex}`],
    ['no-scheme', validKey],
    ['token-scheme', `Token ${validKey}`],
    ['prefix-missing', `Bearer ${hex}`],
    ['latin1', `Bearer mk_${hex.slice(0, 63)}\u00e9`],
    ['quoted', `Bearer "${validKey}"`],
    ['comma-list', `Bearer ${validKey}, Basic x`],
    ['sql', "Bearer mk_' OR '1'='1"],
    ['empty', ''],
  ];
}

export { DAY };
