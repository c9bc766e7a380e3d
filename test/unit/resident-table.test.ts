// The redirect cache's resident tier (src/platform/resident-table.ts): a string table outside the
// V8 heap. What the redirect path depends on: a lookup finds exactly what was stored under that
// key, through growth, replacement and deletion (tombstones), and nothing for a key never stored
// or not ASCII; the table stops at its size.
import { describe, expect, it } from 'vitest';
import { encodeEntries, keyHash, ResidentTable } from '../../src/platform/resident-table';
import { rng } from '../support/recount';

const page = (entries: Array<[string, string]>) => new Uint8Array(encodeEntries(entries).buffer);

describe('the resident table', () => {
  it('agrees with a Map through random pages, replacements, deletions and lookups', () => {
    for (const seed of [1, 2, 3]) {
      const r = rng(seed);
      const table = new ResidentTable(1_000_000);
      const model = new Map<string, string>();
      const keys = Array.from({ length: 3_000 }, (_, i) =>
        r.chance(0.2) ? `dom_${i % 7}\u0000slug-${i}` : `s${i.toString(36)}`,
      );
      for (let step = 0; step < 400; step++) {
        const roll = r.next();
        if (roll < 0.45) {
          const entries: Array<[string, string]> = [];
          for (let n = r.int(1, 60); n > 0; n--) {
            const k = r.pick(keys);
            const v = JSON.stringify([`lnk_${step}`, `é ü ✓ ${'x'.repeat(r.int(0, 300))}`, step]);
            entries.push([k, v]);
          }
          // Within a page, the last entry of a key wins, as it does in the model.
          expect(table.addPage(page(entries))).toBe(entries.length);
          for (const [k, v] of entries) model.set(k, v);
        } else if (roll < 0.7) {
          for (let n = r.int(1, 40); n > 0; n--) {
            const k = r.pick(keys);
            expect(table.delete(k)).toBe(model.delete(k));
          }
        } else {
          for (let n = 0; n < 50; n++) {
            const k = r.pick(keys);
            expect(table.get(k)).toBe(model.get(k));
            expect(table.find(k) >= 0).toBe(model.has(k));
          }
        }
        expect(table.size).toBe(model.size);
      }
      for (const k of keys) expect(table.get(k)).toBe(model.get(k));
      table.clear();
      expect(table.size).toBe(0);
      for (const k of keys.slice(0, 100)) expect(table.get(k)).toBeUndefined();
    }
  });

  it('finds nothing for a key that differs only past its hash, or that is not ASCII; leaves such keys out', () => {
    const table = new ResidentTable(100);
    table.addPage(
      page([
        ['abc', 'one'],
        ['abd', 'two'],
      ]),
    );
    expect(table.get('abc')).toBe('one');
    expect(table.get('abd')).toBe('two');
    expect(table.get('ab')).toBeUndefined();
    expect(table.get('abcd')).toBeUndefined();
    expect(table.get('Abc')).toBeUndefined();
    // 'Ł' is U+0141: its low byte is 'A'; a latin1 comparison alone would match "Abc".
    table.addPage(page([['Abc', 'three']]));
    expect(table.get('\u0141bc')).toBeUndefined();
    expect(
      encodeEntries([
        ['ключ', 'v'],
        ['ok', 'v'],
      ]).count,
    ).toBe(1);
    expect(keyHash('abc')).toBe(keyHash('abc'));
  });

  it('stops at its size and says how many it took', () => {
    const table = new ResidentTable(5);
    expect(table.addPage(page(Array.from({ length: 8 }, (_, i) => [`k${i}`, `v${i}`] as [string, string])))).toBe(5);
    expect(table.size).toBe(5);
    expect(table.get('k4')).toBe('v4');
    expect(table.get('k5')).toBeUndefined();
    expect(table.addPage(page([['k9', 'v9']]))).toBe(0);
    table.delete('k0');
    expect(table.addPage(page([['k9', 'v9']]))).toBe(1);
    expect(table.get('k9')).toBe('v9');
  });

  it('keeps a memo with its entry until the entry is deleted, replaced or cleared, through growth, and at most maxMemos', () => {
    const table = new ResidentTable<{ n: number }>(10_000, 3);
    table.addPage(
      page([
        ['a', 'one'],
        ['b', 'two'],
        ['c', 'three'],
        ['d', 'four'],
      ]),
    );
    const slot = (k: string) => table.find(k);
    expect(table.memoAt(slot('a'))).toBeUndefined();
    const a = { n: 1 };
    table.memoize(slot('a'), a);
    // A second memo for the same entry does not replace the first.
    table.memoize(slot('a'), { n: 99 });
    expect(table.memoAt(slot('a'))).toBe(a);
    expect(table.valueAt(slot('a'), 1)).toBe('one');
    table.memoize(slot('b'), { n: 2 });
    table.memoize(slot('c'), { n: 3 });
    // Full: a fourth is not kept.
    table.memoize(slot('d'), { n: 4 });
    expect(table.memoAt(slot('d'))).toBeUndefined();
    expect(table.memoized).toBe(3);
    // Growth (thousands of entries) moves each memo with its entry.
    table.addPage(page(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, `v${i}`] as [string, string])));
    expect(table.memoAt(slot('a'))).toBe(a);
    expect(table.memoAt(slot('b'))).toEqual({ n: 2 });
    expect(table.memoAt(slot('k10'))).toBeUndefined();
    // Deleting drops the memo, and its room goes to the next.
    expect(table.delete('b')).toBe(true);
    expect(table.memoized).toBe(2);
    table.memoize(slot('d'), { n: 4 });
    expect(table.memoAt(slot('d'))).toEqual({ n: 4 });
    // A new value for a key drops its memo (the link changed).
    table.addPage(page([['a', 'one again']]));
    expect(table.memoAt(slot('a'))).toBeUndefined();
    expect(table.valueAt(slot('a'), 1)).toBe('one again');
    expect(table.memoized).toBe(2);
    table.clear();
    expect(table.memoized).toBe(0);
    table.addPage(page([['a', 'one']]));
    expect(table.memoAt(slot('a'))).toBeUndefined();
  });

  it('holds a million entries across several chunks', () => {
    const table = new ResidentTable(1_000_000);
    for (let start = 0; start < 1_000_000; start += 10_000) {
      const entries = Array.from(
        { length: 10_000 },
        (_, i) =>
          [`s${start + i}`, JSON.stringify([`lnk_${start + i}`, `https://example.com/${start + i}`])] as [
            string,
            string,
          ],
      );
      expect(table.addPage(page(entries))).toBe(10_000);
    }
    expect(table.size).toBe(1_000_000);
    expect(table.bytes).toBeGreaterThan(2 * 16 * 2 ** 20);
    expect(table.get('s0')).toBe('["lnk_0","https://example.com/0"]');
    expect(table.get('s999999')).toBe('["lnk_999999","https://example.com/999999"]');
    expect(table.get('s1000000')).toBeUndefined();
  });
});
