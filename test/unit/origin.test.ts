// The dashboard's anti-forgery Origin check compares origins as browsers do: a proxy that passes
// the default port on in Host (or drops it) does not make the dashboard's own requests foreign.
import { describe, expect, it } from 'vitest';
import { sameOrigin } from '../../src/http/dashboard/origin';

describe('sameOrigin', () => {
  it("takes the scheme's default port written or not, and nothing else as the same", () => {
    expect(sameOrigin('https://sho.rt', 'https://sho.rt:443')).toBe(true);
    expect(sameOrigin('https://SHO.rt', 'https://sho.rt')).toBe(true);
    expect(sameOrigin('http://sho.rt:80', 'http://sho.rt')).toBe(true);
    expect(sameOrigin('https://sho.rt:8443', 'https://sho.rt:8443')).toBe(true);
    expect(sameOrigin('https://sho.rt:8443', 'https://sho.rt')).toBe(false);
    expect(sameOrigin('http://sho.rt', 'https://sho.rt')).toBe(false);
    expect(sameOrigin('https://evil.example', 'https://sho.rt')).toBe(false);
    expect(sameOrigin('https://sho.rt.evil.example', 'https://sho.rt')).toBe(false);
    expect(sameOrigin('null', 'https://sho.rt')).toBe(false);
    expect(sameOrigin('', 'https://sho.rt')).toBe(false);
  });
});
