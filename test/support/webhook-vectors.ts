// The shared test vectors of the reference verifiers (JavaScript src/webhooks/verify.mjs, Python
// verifiers/python/shortlink_webhooks.py, Go verifiers/go/shortlinkwebhooks/verify.go): one list,
// so the three implementations are held to the same answers. `npx tsx test/support/webhook-vectors.ts`
// writes verifiers/vectors.json; test/webhooks/verify-export.test.ts fails when the file and this
// list differ, and runs every case through the JavaScript verifier.
//
// The signatures are computed here with node:crypto, as the sender does (src/webhooks/signing.ts);
// each `expected` is written by hand and is what verify.mjs answers (so a case that states a
// surprising rule says so in its name). A case gives the raw body as base64 (`bodyBase64`, what
// a harness must use) and, when the bytes are valid UTF-8, also as text (`body`, for reading);
// `header` null means the header is absent; `secret` is a string, signed as its UTF-8 bytes;
// Variant A's `now` is the receiver's clock in seconds since the epoch and `toleranceSeconds`,
// when given, replaces the default 300.
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const T = 1767268800; // 2026-01-01T12:00:00Z
const SECRET = 'whsec_0123456789abcdef';
const BODY_A =
  '{"event":"link.created","timestamp":"2026-01-01T12:00:00.000Z","data":{"id":"lnk_1","workspaceId":"ws_1","slug":"spring-sale","title":"Spring sale"}}';
const BODY_B =
  '{"id":"evt_1","type":"link.created","timestamp":"2026-01-01T12:00:00.000Z","data":{"link_id":"lnk_1","slug":"spring-sale","url":"https://example.com/spring"}}';
const NON_ASCII_A =
  '{"event":"link.created","timestamp":"2026-01-01T12:00:00.000Z","data":{"id":"lnk_2","workspaceId":"ws_1","slug":"cafe","title":"Café ☕ — 春 🎉"}}';
const NON_ASCII_B =
  '{"id":"evt_2","type":"link.created","timestamp":"2026-01-01T12:00:00.000Z","data":{"link_id":"lnk_2","slug":"cafe","tags":["Café ☕","春 🎉"]}}';
// Not UTF-8 at all: a receiver that decodes the body as text before verifying breaks on these.
const NOT_UTF8 = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x0d, 0x0a, 0x7d]);
const NON_ASCII_SECRET = 'sécret-ключ-秘密';

/** One case: the fields are explained above. */
export interface WebhookVector {
  variant: 'A' | 'B';
  name: string;
  body?: string;
  bodyBase64: string;
  header: string | null;
  secret: string;
  now?: number;
  toleranceSeconds?: number;
  expected: boolean;
}

const hmacHex = (secret: string, ...parts: Array<string | Buffer>) => {
  const h = createHmac('sha256', secret);
  for (const p of parts) h.update(p);
  return h.digest('hex');
};
const sigA = (body: string | Buffer, t: number | string = T, secret = SECRET) => hmacHex(secret, `${t}.`, body);
const sigB = (body: string | Buffer, secret = SECRET) => hmacHex(secret, body);
/** The body with one byte changed (its first "1" becomes "2"). */
const tamper = (body: string) => {
  const bytes = Buffer.from(body);
  bytes[bytes.indexOf(0x31)] = 0x32;
  return bytes;
};
const ZEROS = '0'.repeat(64);

function bodyFields(body: string | Buffer): { body?: string; bodyBase64: string } {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const text = bytes.toString('utf8');
  // Only bytes that round-trip through UTF-8 get a text form.
  return Buffer.from(text, 'utf8').equals(bytes)
    ? { body: text, bodyBase64: bytes.toString('base64') }
    : { bodyBase64: bytes.toString('base64') };
}

interface CaseOptions {
  body?: string | Buffer;
  header: string | null;
  secret?: string;
  now?: number;
  toleranceSeconds?: number;
  expected: boolean;
}

function a(
  name: string,
  { body = BODY_A, header, secret = SECRET, now = T, toleranceSeconds, expected }: CaseOptions,
): WebhookVector {
  return {
    variant: 'A',
    name,
    ...bodyFields(body),
    header,
    secret,
    now,
    ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
    expected,
  };
}
function b(name: string, { body = BODY_B, header, secret = SECRET, expected }: CaseOptions): WebhookVector {
  return { variant: 'B', name, ...bodyFields(body), header, secret, expected };
}

export function buildVectors(): { description: string; cases: WebhookVector[] } {
  const good = `t=${T},v1=${sigA(BODY_A)}`;
  const v1 = sigA(BODY_A);
  const hb = sigB(BODY_B);
  const cases: WebhookVector[] = [
    // Variant A -----------------------------------------------------------------------------
    a('A valid', { header: good, expected: true }),
    a('A tampered body (one byte)', { body: tamper(BODY_A), header: good, expected: false }),
    a('A body with a newline the sender did not sign', { body: `${BODY_A}\n`, header: good, expected: false }),
    a('A wrong secret', { header: good, secret: `${SECRET}x`, expected: false }),
    a('A non-ASCII secret (signed as UTF-8)', {
      header: `t=${T},v1=${sigA(BODY_A, T, NON_ASCII_SECRET)}`,
      secret: NON_ASCII_SECRET,
      expected: true,
    }),
    a('A header missing', { header: null, expected: false }),
    a('A header empty', { header: '', expected: false }),
    a('A header garbage', { header: 'garbage', expected: false }),
    a('A only t', { header: `t=${T}`, expected: false }),
    a('A only v1', { header: `v1=${v1}`, expected: false }),
    a('A empty v1', { header: `t=${T},v1=`, expected: false }),
    a('A empty t', { header: `t=,v1=${v1}`, expected: false }),
    a('A separated by ; instead of ,', { header: `t=${T};v1=${v1}`, expected: false }),
    a('A keys in upper case', { header: `T=${T},V1=${v1}`, expected: false }),
    a('A a t other than the signed one', { header: `t=${T + 1},v1=${v1}`, now: T + 1, expected: false }),
    a('A several v1, the right one last', { header: `t=${T},v1=${ZEROS},v1=${v1}`, expected: true }),
    a('A several v1, the right one first', { header: `t=${T},v1=${v1},v1=${ZEROS}`, expected: true }),
    a('A several v1, none right', { header: `t=${T},v1=${ZEROS},v1=${sigA(BODY_A, T, 'other')}`, expected: false }),
    a('A unknown keys are ignored', { header: `t=${T},v0=abc,v2=${ZEROS},v1=${v1}`, expected: true }),
    a('A t after the v1', { header: `v1=${v1},t=${T}`, expected: true }),
    a('A 299 s old', { header: good, now: T + 299, expected: true }),
    a('A exactly 300 s old (accepted)', { header: good, now: T + 300, expected: true }),
    a('A exactly 300 s in the future (accepted)', { header: good, now: T - 300, expected: true }),
    a('A 300.5 s old', { header: good, now: T + 300.5, expected: false }),
    a('A 301 s old', { header: good, now: T + 301, expected: false }),
    a('A 301 s in the future', { header: good, now: T - 301, expected: false }),
    a('A 500 s old with a tolerance of 600 s', { header: good, now: T + 500, toleranceSeconds: 600, expected: true }),
    a('A a tolerance of 0 s, the same second', { header: good, now: T, toleranceSeconds: 0, expected: true }),
    a('A a tolerance of 0 s, half a second later', {
      header: good,
      now: T + 0.5,
      toleranceSeconds: 0,
      expected: false,
    }),
    a('A t duplicated (same value)', { header: `t=${T},t=${T},v1=${v1}`, expected: false }),
    a('A t duplicated after the v1', { header: `t=${T},v1=${v1},t=${T}`, expected: false }),
    a('A t not numeric', { header: `t=abc,v1=${v1}`, expected: false }),
    a('A t with a sign (signed as sent)', { header: `t=+${T},v1=${sigA(BODY_A, `+${T}`)}`, expected: false }),
    a('A t negative (signed as sent)', { header: `t=-5,v1=${sigA(BODY_A, '-5')}`, now: -5, expected: false }),
    a('A t with a fraction (signed as sent)', { header: `t=${T}.0,v1=${sigA(BODY_A, `${T}.0`)}`, expected: false }),
    a('A t in exponent form (signed as sent)', {
      header: `t=1.7672688e9,v1=${sigA(BODY_A, '1.7672688e9')}`,
      now: 1767268800,
      expected: false,
    }),
    a('A t in non-ASCII digits (signed as sent)', {
      header: `t=١٧٦٧٢٦٨٨٠٠,v1=${sigA(BODY_A, '١٧٦٧٢٦٨٨٠٠')}`,
      expected: false,
    }),
    a('A t in milliseconds (13 digits, signed as sent)', {
      header: `t=${T}000,v1=${sigA(BODY_A, `${T}000`)}`,
      now: T * 1000,
      expected: false,
    }),
    a('A t with a leading zero, signed as sent (accepted: up to 12 digits)', {
      header: `t=0${T},v1=${sigA(BODY_A, `0${T}`)}`,
      expected: true,
    }),
    a('A t with a leading zero, signature over the t without it', { header: `t=0${T},v1=${v1}`, expected: false }),
    a('A v1 in upper-case hex (rejected: v1 must be lower case)', {
      header: `t=${T},v1=${v1.toUpperCase()}`,
      expected: false,
    }),
    a('A v1 in upper case beside the same v1 in lower case', {
      header: `t=${T},v1=${v1.toUpperCase()},v1=${v1}`,
      expected: true,
    }),
    a('A v1 of 63 hex digits', { header: `t=${T},v1=${v1.slice(0, 63)}`, expected: false }),
    a('A v1 of 65 hex digits', { header: `t=${T},v1=${v1}0`, expected: false }),
    a('A v1 with a sha256= prefix', { header: `t=${T},v1=sha256=${v1}`, expected: false }),
    a('A v1 not hex', { header: `t=${T},v1=${'g'.repeat(64)}`, expected: false }),
    a('A spaces after the comma', { header: `t=${T}, v1=${v1}`, expected: true }),
    a('A spaces around every key and value', { header: `  t = ${T} ,  v1 = ${v1}  `, expected: true }),
    a('A tabs around the parts', { header: `\tt=${T}\t,\tv1=${v1}\t`, expected: true }),
    a('A a space inside the digest', { header: `t=${T},v1=${v1.slice(0, 32)} ${v1.slice(32)}`, expected: false }),
    a('A a trailing comma (an empty part rejects the header)', { header: `${good},`, expected: false }),
    a('A a part without = (rejects the header)', { header: `${good},foo`, expected: false }),
    a('A no-break space U+00A0 around v1 (trimmed, as String.prototype.trim does)', {
      header: `t=${T},\u00a0v1=${v1}\u00a0`,
      expected: true,
    }),
    a('A byte order mark U+FEFF around v1 (trimmed, as String.prototype.trim does)', {
      header: `t=${T},\ufeffv1=${v1}\ufeff`,
      expected: true,
    }),
    a('A next line U+0085 after v1 (not trimmed, as String.prototype.trim does not)', {
      header: `t=${T},v1=${v1}\u0085`,
      expected: false,
    }),
    a('A body with non-ASCII UTF-8', { body: NON_ASCII_A, header: `t=${T},v1=${sigA(NON_ASCII_A)}`, expected: true }),
    a('A body with non-ASCII UTF-8, tampered (one byte)', {
      body: tamper(NON_ASCII_A),
      header: `t=${T},v1=${sigA(NON_ASCII_A)}`,
      expected: false,
    }),
    a('A body ending in a newline', {
      body: `${BODY_A}\n`,
      header: `t=${T},v1=${sigA(`${BODY_A}\n`)}`,
      expected: true,
    }),
    a('A body ending in a newline, received without it', {
      body: BODY_A,
      header: `t=${T},v1=${sigA(`${BODY_A}\n`)}`,
      expected: false,
    }),
    a('A body of bytes that are not UTF-8', { body: NOT_UTF8, header: `t=${T},v1=${sigA(NOT_UTF8)}`, expected: true }),
    a('A empty body', { body: '', header: `t=${T},v1=${sigA('')}`, expected: true }),

    // Variant B -----------------------------------------------------------------------------
    b('B valid', { header: hb, expected: true }),
    b('B tampered body (one byte)', { body: tamper(BODY_B), header: hb, expected: false }),
    b('B body with a newline the sender did not sign', { body: `${BODY_B}\n`, header: hb, expected: false }),
    b('B wrong secret', { header: hb, secret: `${SECRET}x`, expected: false }),
    b('B non-ASCII secret (signed as UTF-8)', {
      header: sigB(BODY_B, NON_ASCII_SECRET),
      secret: NON_ASCII_SECRET,
      expected: true,
    }),
    b('B header missing', { header: null, expected: false }),
    b('B header empty', { header: '', expected: false }),
    b('B header garbage', { header: 'garbage', expected: false }),
    b('B upper-case hex (accepted)', { header: hb.toUpperCase(), expected: true }),
    b('B mixed-case hex (accepted)', { header: hb.slice(0, 32).toUpperCase() + hb.slice(32), expected: true }),
    b('B hex of 63 digits', { header: hb.slice(0, 63), expected: false }),
    b('B hex of 65 digits', { header: `${hb}0`, expected: false }),
    b('B two digests', { header: `${hb}${hb}`, expected: false }),
    b('B two digests separated by a comma', { header: `${hb},${hb}`, expected: false }),
    b('B not hex, right length', { header: 'g'.repeat(64), expected: false }),
    b('B sha256= prefix', { header: `sha256=${hb}`, expected: false }),
    b('B a Variant A header', { header: `t=${T},v1=${hb}`, expected: false }),
    b('B spaces and tabs around the digest', { header: ` \t${hb} \t`, expected: true }),
    b('B a space inside the digest', { header: `${hb.slice(0, 32)} ${hb.slice(32)}`, expected: false }),
    b('B no-break space U+00A0 around the digest (trimmed, as String.prototype.trim does)', {
      header: `\u00a0${hb}\u00a0`,
      expected: true,
    }),
    b('B byte order mark U+FEFF before the digest (trimmed, as String.prototype.trim does)', {
      header: `\ufeff${hb}`,
      expected: true,
    }),
    b('B next line U+0085 after the digest (not trimmed, as String.prototype.trim does not)', {
      header: `${hb}\u0085`,
      expected: false,
    }),
    b('B body with non-ASCII UTF-8', { body: NON_ASCII_B, header: sigB(NON_ASCII_B), expected: true }),
    b('B body with non-ASCII UTF-8, tampered (one byte)', {
      body: tamper(NON_ASCII_B),
      header: sigB(NON_ASCII_B),
      expected: false,
    }),
    b('B body ending in a newline', { body: `${BODY_B}\n`, header: sigB(`${BODY_B}\n`), expected: true }),
    b('B body ending in a newline, received without it', {
      body: BODY_B,
      header: sigB(`${BODY_B}\n`),
      expected: false,
    }),
    b('B body of bytes that are not UTF-8', { body: NOT_UTF8, header: sigB(NOT_UTF8), expected: true }),
    b('B empty body', { body: '', header: sigB(''), expected: true }),
  ];
  return {
    description:
      'Test vectors of the Shortlink webhook verifiers (asyncapi/variant-a.yaml and variant-b.yaml, "Verifying a delivery"). ' +
      'Written by test/support/webhook-vectors.ts, which explains the fields; do not edit by hand.',
    cases,
  };
}

/**
 * The file's text. Invisible characters (C1 controls, no-break and zero-width spaces, the byte
 * order mark) are written as \\u escapes, so that a reader of the file can see them.
 */
export function vectorsJson(): string {
  const text = `${JSON.stringify(buildVectors(), null, 2)}\n`;
  return text.replace(
    /[\u007f-\u00a0\u00ad\u2000-\u200f\u2028-\u202f\u205f-\u206f\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export const VECTORS_FILE = fileURLToPath(new URL('../../verifiers/vectors.json', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === fs.realpathSync(process.argv[1])) {
  fs.writeFileSync(VECTORS_FILE, vectorsJson());
  console.log(`wrote ${VECTORS_FILE}`);
}
