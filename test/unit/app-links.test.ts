// The shape check of the app deep-link documents (src/domain/app-links.ts): documents as Apple
// and Google publish them pass and are kept as compact JSON; the size limit names its document.
import { describe, expect, it } from 'vitest';
import { APP_LINKS_MAX_BYTES, appLinksText } from '../../src/domain/app-links';
import { isAppError } from '../../src/domain/errors';
import { ANDROID, APPLE, FINGERPRINT } from '../support/app-links';

describe('appLinksText', () => {
  it('passes documents in the shapes Apple and Google publish, kept as compact JSON', () => {
    // Apple's older form: an empty `apps` beside `details` with `appID` and `paths` (NOT, wildcards).
    const legacy = {
      applinks: {
        apps: [],
        details: [{ appID: '9JA89QQLNQ.com.apple.wwdc', paths: ['/wwdc/news/', 'NOT /videos/wwdc/2010/*', '*'] }],
      },
    };
    const clips = { appclips: { apps: ['ABCDE12345.com.example.app.Clip'] } };
    for (const apple of [APPLE, legacy, clips]) expect(appLinksText({ apple }).apple).toBe(JSON.stringify(apple));
    const pretty = JSON.parse(JSON.stringify(ANDROID, null, 4));
    expect(appLinksText({ android: pretty })).toEqual({ apple: null, android: JSON.stringify(ANDROID) });
    expect(appLinksText({})).toEqual({ apple: null, android: null });
    expect(appLinksText({ apple: null, android: null })).toEqual({ apple: null, android: null });
  });

  it('refuses a document over 64 KiB as stored with a 413 naming it', () => {
    const statement = ANDROID[0];
    const many = Array.from({ length: Math.ceil(APP_LINKS_MAX_BYTES / JSON.stringify(statement).length) + 1 }, () => ({
      ...statement,
    }));
    try {
      appLinksText({ android: many });
      expect.unreachable();
    } catch (err) {
      expect(isAppError(err, 'too_large')).toBe(true);
      expect((err as { details: { field?: string } }).details.field).toBe('android');
    }
    // Just under the limit passes.
    const fits = many.slice(0, Math.floor((APP_LINKS_MAX_BYTES - 2) / (JSON.stringify(statement).length + 1)));
    expect(appLinksText({ android: fits }).android!.length).toBeLessThanOrEqual(APP_LINKS_MAX_BYTES);
  });

  it('names the fingerprint rule: 32 upper-case pairs joined by colons', () => {
    expect(FINGERPRINT).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const target = { ...ANDROID[0].target, sha256_cert_fingerprints: [`${FINGERPRINT}:00`] };
    expect(() => appLinksText({ android: [{ relation: ['x'], target }] })).toThrow(
      'android.0.target.sha256_cert_fingerprints.0 must be 32 upper-case hex pairs separated by colons',
    );
  });
});
