// What a log keeps of an address (src/domain/log-redaction.ts): every token gone, the rest as sent.
import { describe, expect, it } from 'vitest';
import { redactParams, redactUrl } from '../../src/domain/log-redaction';

describe('redactUrl', () => {
  it.each([
    ['/app/setup-password?token=abc', '/app/setup-password?token=[REDACTED]'],
    ['/app/invite?x=1&TOKEN=abc&y=2', '/app/invite?x=1&TOKEN=[REDACTED]&y=2'],
    ['/app/api/invitation?tok%65n=abc', '/app/api/invitation?tok%65n=[REDACTED]'],
    ['/app/x?token[]=a&token', '/app/x?token[]=[REDACTED]&token=[REDACTED]'],
    ['/app/shared/abc', '/app/shared/[REDACTED]'],
    ['/APP/Shared/abc?x=1', '/APP/Shared/[REDACTED]?x=1'],
    ['/app/api/shared/abc/unlock', '/app/api/shared/[REDACTED]/unlock'],
    ['https://sho.rt/app/setup?token=abc#top', 'https://sho.rt/app/setup?token=[REDACTED]#top'],
    ['/app/login?next=%2Fsetup%3Ftoken%3Dabc', `/app/login?next=${encodeURIComponent('/setup?token=[REDACTED]')}`],
    ['/app/login?next=%252Fi%253Ftoken%253Dabc', `/app/login?next=${encodeURIComponent('/i?token=[REDACTED]')}`],
    ['/app/login?next=/shared/abc', `/app/login?next=${encodeURIComponent('/shared/[REDACTED]')}`],
    ['/w/ws_1/links?page=2&q=tokens', '/w/ws_1/links?page=2&q=tokens'],
    ['/api/v1/links', '/api/v1/links'],
  ])('%s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
    expect(redactUrl(url)).not.toContain('abc');
  });
});

describe('redactParams', () => {
  it('replaces token parameters and tokens of addresses in the others', () => {
    const params = { token: 'abc', next: '/setup?token=abc', deeper: '%2Fsetup%3Ftoken%3Dabc', page: '2' };
    expect(redactParams(params)).toEqual({
      token: '[REDACTED]',
      next: '/setup?token=[REDACTED]',
      deeper: '/setup?token=[REDACTED]',
      page: '2',
    });
    expect(redactParams(undefined)).toBeUndefined();
  });
});
