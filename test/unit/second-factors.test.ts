// The authenticator app's codes and the recovery codes (src/domain/second-factors.ts).
import { describe, expect, it } from 'vitest';
import {
  acceptedTotpStep,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  totpCode,
  totpUri,
} from '../../src/domain/second-factors';

// RFC 6238, appendix B: the SHA-1 key "12345678901234567890" (base32 below); its 8-digit codes
// end in the 6 digits an app shows.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('second factors', () => {
  it("makes RFC 6238's codes (SHA-1, 6 digits, 30 s)", () => {
    expect(totpCode(RFC_SECRET, 59_000)).toBe('287082');
    expect(totpCode(RFC_SECRET, 1_111_111_109_000)).toBe('081804');
    expect(totpCode(RFC_SECRET, 1_234_567_890_000)).toBe('005924');
  });

  it('accepts the step before and after, not two away; never a step at or before the last one used', () => {
    const at = 1_234_567_890_000;
    const step = Math.floor(at / 30_000);
    expect(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, at), at, null)).toBe(step);
    expect(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, at - 30_000), at, null)).toBe(step - 1);
    expect(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, at + 30_000), at, null)).toBe(step + 1);
    expect(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, at - 60_000), at, null)).toBeNull();
    expect(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, at), at, step)).toBeNull();
    expect(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, at - 30_000), at, step - 1)).toBeNull();
    expect(acceptedTotpStep(RFC_SECRET, totpCode(RFC_SECRET, at + 30_000), at, step)).toBe(step + 1);
    // Spaces do not matter; anything but six digits is no code.
    expect(acceptedTotpStep(RFC_SECRET, ' 005 924 ', at, null)).toBe(step);
    expect(acceptedTotpStep(RFC_SECRET, '5924', at, null)).toBeNull();
    expect(acceptedTotpStep(RFC_SECRET, 'abcdef', at, null)).toBeNull();
  });

  it('makes 160-bit secrets and an otpauth URI apps read', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const uri = new URL(totpUri(secret, 'Shortlink (sho.rt)', 'ada@acme.example'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('Shortlink (sho.rt)');
    expect(uri.searchParams.get('algorithm')).toBe('SHA1');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
  });

  it('makes ten distinct recovery codes, hashed whatever their case, spaces and dash', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-hj-km-np-z2-9]{5}-[a-hj-km-np-z2-9]{5}$/);
    expect(recoveryCodeHash(` ${codes[0].toUpperCase().replace('-', ' ')} `)).toBe(recoveryCodeHash(codes[0]));
    expect(recoveryCodeHash(codes[0])).not.toBe(recoveryCodeHash(codes[1]));
  });
});
