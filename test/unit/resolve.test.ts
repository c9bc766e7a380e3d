// locationOf: what a stored URL becomes as a Location header, on its fast path (plain ASCII
// http(s)) and its slow path (anything else), which must agree with a full URL parse.
import { describe, expect, it } from 'vitest';
import { locationOf } from '../../src/domain/resolve';

describe('locationOf', () => {
  it('keeps a plain http(s) URL as stored', () => {
    for (const url of [
      'https://example.com/p/1?utm_source=x&id=7',
      'http://example.com',
      'https://example.com:8443/a#frag',
    ]) {
      expect(locationOf(url)).toBe(url);
    }
  });

  it('sends what the URL parser reads for a row not stored normalised, never the text', () => {
    // As written, a browser resolves `https:evil.example` against the short link's own address.
    expect(locationOf('https:evil.example')).toBe('https://evil.example/');
    expect(locationOf('HTTPS://Example.com/A')).toBe('https://example.com/A');
  });

  it('encodes a URL with characters a header cannot carry as they are', () => {
    expect(locationOf('https://example.com/caf\u00e9')).toBe('https://example.com/caf%C3%A9');
    expect(locationOf('https://b\u00fccher.example/')).toBe('https://xn--bcher-kva.example/');
  });

  it('refuses anything that is not an absolute http(s) URL', () => {
    for (const url of [
      'javascript:alert(1)',
      'data:text/html,x',
      '//evil.example/',
      'ftp://example.com/',
      'https://',
      'https://[bad',
      'https://exa mple.com/',
      'http://a b/',
      'example.com',
    ]) {
      expect(locationOf(url), url).toBeNull();
    }
  });
});
