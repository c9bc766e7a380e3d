import { describe, expect, it } from 'vitest';
import { RedirectCache } from '../../src/redirect/cache';

describe('redirect cache', () => {
  it('keys the short domain and each custom domain apart, whatever the slug', () => {
    const cache = new RedirectCache<string>(10);
    const keys = [
      RedirectCache.keyOf({ domainKey: '', slug: 'promo' }),
      RedirectCache.keyOf({ domainKey: 'dom_1', slug: 'promo' }),
      RedirectCache.keyOf({ domainKey: 'dom_2', slug: 'promo' }),
      // A slug that spells another domain's key is still the short domain's.
      RedirectCache.keyOf({ domainKey: '', slug: 'dom_1' }),
    ];
    expect(new Set(keys).size).toBe(4);
    keys.forEach((k, i) => cache.set(k, `link ${i}`));
    void cache.invalidate([{ domainKey: 'dom_1', slug: 'promo' }]);
    expect(keys.map((k) => cache.get(k))).toEqual(['link 0', undefined, 'link 2', 'link 3']);
    void cache.invalidate([{ domainKey: '', slug: 'promo' }]);
    expect(keys.map((k) => cache.get(k))).toEqual([undefined, undefined, 'link 2', 'link 3']);
  });

  it('stays within its size, evicting the oldest entries first, across deletions', () => {
    const cache = new RedirectCache<number>(3);
    for (let i = 0; i < 3; i++) cache.set(`k${i}`, i);
    cache.delete('k0');
    cache.set('k3', 3); // there is room again: admitted at once
    expect(cache.size).toBe(3);
    cache.set('k4', 4); // full: a first miss is not admitted
    expect(cache.get('k4')).toBeUndefined();
    cache.set('k4', 4); // its second miss evicts k1, the oldest still present
    expect(cache.get('k1')).toBeUndefined();
    expect([cache.get('k2'), cache.get('k3'), cache.get('k4')]).toEqual([2, 3, 4]);
    cache.set('k4', 44); // an existing key never evicts
    expect(cache.get('k2')).toBe(2);
    for (let i = 5; i < 1000; i++) {
      cache.set(`k${i}`, i);
      cache.set(`k${i}`, i);
    }
    expect(cache.size).toBe(3);
    expect([cache.get('k997'), cache.get('k998'), cache.get('k999')]).toEqual([997, 998, 999]);
    cache.clear();
    cache.set('a', 1);
    expect(cache.get('a')).toBe(1);
  });

  it('once full, keeps its entries against keys asked for only once (a scan or a long tail)', () => {
    const cache = new RedirectCache<number>(100);
    for (let i = 0; i < 100; i++) cache.set(`hot${i}`, i);
    for (let i = 0; i < 10_000; i++) cache.set(`once${i}`, i);
    expect(cache.size).toBe(100);
    for (let i = 0; i < 100; i++) expect(cache.get(`hot${i}`)).toBe(i);
    // A key that keeps coming back is admitted on its second miss.
    cache.set('back', 1);
    cache.set('back', 1);
    expect(cache.get('back')).toBe(1);
  });
});
