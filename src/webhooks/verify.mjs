// Reference verifiers for receivers of Shortlink webhooks (asyncapi/variant-a.yaml and
// variant-b.yaml, "Verifying a delivery"). Plain JavaScript with no dependency but node:crypto,
// so a receiver can `import { verifyVariantA, verifyVariantB } from 'shortlink/webhooks'` under
// plain Node, or copy this file. Types: verify.d.mts. The same verifiers in Python and Go, one
// file each with only the standard library: verifiers/python/shortlink_webhooks.py and
// verifiers/go/shortlinkwebhooks/verify.go. All three are held to the test vectors in
// verifiers/vectors.json (test/webhooks/verify-export.test.ts runs them here).
//
// Both functions take the RAW request body (the bytes as received, before any JSON parsing) and
// return true or false. They never throw for what a sender controls (a missing, malformed or
// wrong header, a tampered body); they throw a TypeError only when the receiver passes no secret.
import { createHmac, timingSafeEqual } from 'node:crypto';

const HEX_DIGEST = /^[0-9a-f]{64}$/;

function checkSecret(secret) {
  if (!(typeof secret === 'string' || Buffer.isBuffer(secret)) || secret.length === 0) {
    throw new TypeError('a webhook secret (non-empty string or Buffer) is required');
  }
}

function sameDigest(expectedHex, givenHex) {
  // Both are 64 lower-case hex characters here, so equal lengths: only the comparison of the
  // bytes could leak timing, and timingSafeEqual does not.
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(givenHex, 'hex'));
}

/**
 * Variant A: `X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * True when one `v1` matches and `t` is within `toleranceSeconds` (default 300) of `now`
 * (milliseconds since the epoch or a Date; default the current time).
 */
export function verifyVariantA(rawBody, signatureHeader, secret, options = {}) {
  checkSecret(secret);
  const { toleranceSeconds = 300, now = Date.now() } = options;
  if (typeof signatureHeader !== 'string') return false;
  let t;
  const candidates = [];
  for (const part of signatureHeader.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return false;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined || !/^[0-9]{1,12}$/.test(value)) return false;
      t = value;
    } else if (key === 'v1') {
      if (HEX_DIGEST.test(value)) candidates.push(value);
    }
  }
  if (t === undefined || candidates.length === 0) return false;
  const nowSeconds = (now instanceof Date ? now.getTime() : Number(now)) / 1000;
  // Written so that a tolerance that is not a number (NaN, undefined from a bad config) fails
  // closed: `age > NaN` is false, which would accept a signature of any age.
  if (!Number.isFinite(nowSeconds) || !(Math.abs(nowSeconds - Number(t)) <= toleranceSeconds)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  let match = false;
  // Every candidate is compared, so the time taken does not tell which one matched.
  for (const candidate of candidates) match = sameDigest(expected, candidate) || match;
  return match;
}

/** Variant B: `X-Service-Signature: <hex HMAC-SHA256(secret, raw body)>`. */
export function verifyVariantB(rawBody, signatureHeader, secret) {
  checkSecret(secret);
  if (typeof signatureHeader !== 'string') return false;
  const given = signatureHeader.trim().toLowerCase();
  if (!HEX_DIGEST.test(given)) return false;
  return sameDigest(createHmac('sha256', secret).update(rawBody).digest('hex'), given);
}
