// Where sign-in sends the person: `next` resolved as the browser resolves it, kept only inside
// the app. Hostile values must all come back as "/" or as a path still under /app/.
import { describe, expect, it } from 'vitest';
import { safeNext } from '../../src/web/lib/app-paths';

describe('safeNext', () => {
  it('keeps an address inside the app, with its query and fragment', () => {
    expect(safeNext('/w/ws_1/links?page=2')).toBe('/w/ws_1/links?page=2');
    expect(safeNext('/w/ws_1/settings/keys#create')).toBe('/w/ws_1/settings/keys#create');
    expect(safeNext('/')).toBe('/');
  });

  it('resolves dot segments that stay inside the app', () => {
    expect(safeNext('/w/ws_1/links/../settings')).toBe('/w/ws_1/settings');
    expect(safeNext('/w/%2e%2e/w/ws_1/links')).toBe('/w/ws_1/links');
  });

  it.each([
    [null],
    [''],
    ['w/ws_1'],
    ['//evil.example.com'],
    ['//evil.example.com/app/'],
    ['/\\evil.example.com'],
    ['/\\/evil.example.com'],
    ['\\\\evil.example.com'],
    ['/w/..\\..\\evil'],
    ['/\t/evil.example.com'],
    ['/\n/evil.example.com'],
    ['javascript:alert(1)'],
    ['https://evil.example.com/'],
    ['/w/../../evil-next'],
    ['/../evil-next'],
    ['/..'],
    ['/w/%2e%2e/%2e%2e/evil-next'],
    ['/w/%2E%2E/%2E./evil-next'],
    ['/w/.%2e/.%2e/evil-next'],
    ['/./../evil'],
    ['//'],
    ['/login'],
    ['/setup-password?token=abc'],
    ['/shared/tok'],
    ['/w/../login'],
  ])('refuses %j', (next) => {
    expect(safeNext(next as string | null)).toBe('/');
  });

  it('keeps a scheme-looking segment a path inside the app', () => {
    expect(safeNext('/javascript:alert(1)')).toBe('/javascript:alert(1)');
  });

  it('never leaves /app once the browser puts the answer after the base', () => {
    for (const next of ['/w/../../evil', '/%2e%2e/evil', '/w/%2F..%2F..%2Fevil', '/a/b/../../../../x?y=1']) {
      const target = new URL(`/app${safeNext(next)}`, 'https://sho.rt');
      expect(target.origin).toBe('https://sho.rt');
      expect(target.pathname.startsWith('/app/') || target.pathname === '/app').toBe(true);
    }
  });
});
