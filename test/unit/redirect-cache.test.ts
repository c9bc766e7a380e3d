import { describe, expect, it } from 'vitest';
import { RedirectCache } from '../../src/redirect/cache';

describe('redirect cache', () => {
  it('stays within its size, evicting the oldest entries first, across deletions', () => {
    const cache = new RedirectCache<number>(3);
    for (let i = 0; i < 3; i++) cache.set(`k${i}`, i);
    cache.delete('k0');
    cache.set('k3', 3);
    expect(cache.size).toBe(3);
    cache.set('k4', 4); // evicts k1, the oldest still present
    expect(cache.get('k1')).toBeUndefined();
    expect([cache.get('k2'), cache.get('k3'), cache.get('k4')]).toEqual([2, 3, 4]);
    cache.set('k4', 44); // an existing key never evicts
    expect(cache.get('k2')).toBe(2);
    for (let i = 5; i < 1000; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
    expect([cache.get('k997'), cache.get('k998'), cache.get('k999')]).toEqual([997, 998, 999]);
    cache.clear();
    cache.set('a', 1);
    expect(cache.get('a')).toBe(1);
  });
});
