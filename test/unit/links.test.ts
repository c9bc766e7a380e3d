import { describe, expect, it } from 'vitest';
import {
  destinationProblem,
  expiredUrlReturnsTo,
  normalizeDestination,
  normalizeTitle,
  previewImageAsset,
  shortAddressOf,
  type ChainNode,
} from '../../src/domain/links';
import { checkSlug, generateSlug, RESERVED_SLUGS } from '../../src/domain/slugs';
import { hashPassword, verifyPassword } from '../../src/domain/passwords';
import { API_KEY_FORMAT, generateApiKey, hashApiKey } from '../../src/domain/access';

describe('slugs', () => {
  it('lowercases and accepts [a-z0-9_-] of 1 to 64 characters', () => {
    expect(checkSlug('Hello_World-1')).toEqual({ ok: true, slug: 'hello_world-1' });
    expect(checkSlug('a'.repeat(64)).ok).toBe(true);
    expect(checkSlug('a'.repeat(65))).toEqual({ ok: false, reason: 'invalid' });
    expect(checkSlug('')).toEqual({ ok: false, reason: 'invalid' });
    expect(checkSlug('a/b')).toEqual({ ok: false, reason: 'invalid' });
  });
  it('reports every reserved name as reserved, whatever its case', () => {
    for (const name of RESERVED_SLUGS) expect(checkSlug(name.toUpperCase())).toEqual({ ok: false, reason: 'reserved' });
    expect(RESERVED_SLUGS.size).toBe(18);
  });
  it('generates 7 characters of [a-z0-9]', () => {
    const seen = new Set(Array.from({ length: 200 }, generateSlug));
    for (const s of seen) expect(s).toMatch(/^[a-z0-9]{7}$/);
    expect(seen.size).toBe(200);
  });
});

describe('destinations', () => {
  it('accepts absolute http and https only', () => {
    expect(destinationProblem('https://example.com/x?y=1')).toBeNull();
    expect(destinationProblem('http://example.com')).toBeNull();
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,x',
      'ftp://x.example',
      'mailto:a@b.c',
      '//example.com',
      'example.com',
      'file:///etc/passwd',
    ]) {
      expect(destinationProblem(bad), bad).not.toBeNull();
    }
    expect(destinationProblem(`https://e.com/${'a'.repeat(2048)}`)).toMatch(/2048/);
  });
  it('trims and truncates titles at 200 characters, counting characters not UTF-16 units', () => {
    expect(normalizeTitle('  x  ')).toBe('x');
    expect(normalizeTitle('   ')).toBeNull();
    expect(normalizeTitle('😀'.repeat(201))).toBe('😀'.repeat(200));
  });
  it('stores and redirects to what the URL parser read, not the text as sent', () => {
    // Sent as written, `https:evil.example` in a Location header resolves against the short link.
    expect(normalizeDestination('https:evil.example')).toEqual({ href: 'https://evil.example/' });
    expect(normalizeDestination('https:/evil.example')).toEqual({ href: 'https://evil.example/' });
    expect(normalizeDestination('https://evil.example\\@good.example')).toEqual({
      href: 'https://evil.example/@good.example',
    });
    expect(normalizeDestination('HTTPS://Example.COM:443/a/../b?q=ü')).toEqual({
      href: 'https://example.com/b?q=%C3%BC',
    });
    expect(normalizeDestination(`https://e.com/${'ü'.repeat(400)}`)).toEqual({
      problem: expect.stringMatching(/2048 characters once normalised/),
    });
  });
  it('accepts a preview image only as one file directly under the asset base, with an image ending', () => {
    const base = 'https://sl.example/assets/';
    expect(previewImageAsset('https://sl.example/assets/a.PNG', base)).toEqual({
      href: 'https://sl.example/assets/a.PNG',
      fileName: 'a.PNG',
    });
    expect(previewImageAsset('https://SL.example:443/assets/ast_1.webp', base)).toEqual({
      href: 'https://sl.example/assets/ast_1.webp',
      fileName: 'ast_1.webp',
    });
    for (const bad of [
      'https://sl.example/assets/a.svg',
      'https://cdn.example/assets/a.png',
      'http://sl.example/assets/a.png',
      'https://sl.example/elsewhere/a.png',
      // Dot segments, plain or encoded, are refused rather than resolved.
      'https://sl.example/assets/../../etc/passwd.png',
      'https://sl.example/assets/%2e%2e/assets/a.png',
      'https://sl.example/assets/./a.png',
      'https://sl.example\\assets\\..\\a.png',
      // Not one file the service holds: a subfolder, a query, a fragment, an encoded slash.
      'https://sl.example/assets/x/a.png',
      'https://sl.example/assets/a.png?x=1',
      'https://sl.example/assets/a.png#x',
      'https://sl.example/assets/x%2Fa.png',
      'https://sl.example/assets/.hidden.png',
    ]) {
      expect(previewImageAsset(bad, base), bad).toHaveProperty('problem');
    }
  });
});

describe('expiredUrl chains', () => {
  const nodes: Record<string, ChainNode> = {
    'sl.example/a': { id: 'A', originalUrl: 'https://sl.example/b', expiredUrl: null },
    'sl.example/b': { id: 'B', originalUrl: 'https://example.com', expiredUrl: 'https://sl.example/c' },
    'sl.example/c': { id: 'C', originalUrl: 'https://sl.example/x', expiredUrl: null },
  };
  const lookup = async (a: { host: string; slug: string }) => nodes[`${a.host}/${a.slug}`] ?? null;

  it('finds a pointer straight back at the link', async () => {
    expect(await expiredUrlReturnsTo(null, 'https://sl.example/x', { host: 'sl.example', slug: 'x' }, lookup)).toBe(
      true,
    );
  });
  it('finds a chain through destinations and fallbacks', async () => {
    // x -> a -> b -(expired)-> c -> x
    expect(await expiredUrlReturnsTo('X', 'https://sl.example/a', { host: 'sl.example', slug: 'x' }, lookup)).toBe(
      true,
    );
  });
  it('lets a chain that ends elsewhere through', async () => {
    expect(await expiredUrlReturnsTo('Z', 'https://sl.example/a', { host: 'sl.example', slug: 'z' }, lookup)).toBe(
      false,
    );
    expect(await expiredUrlReturnsTo('Z', 'https://other.example/z', { host: 'sl.example', slug: 'z' }, lookup)).toBe(
      false,
    );
  });
  it('reads short addresses case-insensitively', () => {
    expect(shortAddressOf('https://SL.example/AbC')).toEqual({ host: 'sl.example', slug: 'abc' });
    expect(shortAddressOf('https://sl.example/a/b')).toBeNull();
  });
});

describe('secrets at rest', () => {
  it('hashes passwords with scrypt and verifies them', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('wrong horse', stored)).toBe(false);
    expect(await hashPassword('correct horse')).not.toBe(stored);
  });
  it('makes keys of mk_ and 64 hex characters, stored as a sha256 hash', () => {
    const key = generateApiKey();
    expect(key).toMatch(API_KEY_FORMAT);
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(3));
  });
});
