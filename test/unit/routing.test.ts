// The pure parts of routing: query forwarding, click ids, client addresses, the split's figures.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inRange, parseAddress, parseRange } from '../../src/domain/addresses';
import { ClickIds, forwardedLocation } from '../../src/domain/forwarding';
import { compareVariants, winnerOf } from '../../src/domain/split-stats';
import { preferredLanguage, queryHas, queryParams } from '../../src/domain/visitor-traits';
import { compileRouting } from '../../src/domain/routing';

describe('forwardedLocation', () => {
  it.each([
    [
      'https://e.com/p?utm_source=site&x=1#top',
      'utm_source=news&q=a%20b',
      'https://e.com/p?utm_source=site&x=1&q=a%20b#top',
    ],
    ['https://e.com/p', 'a=1&&b', 'https://e.com/p?a=1&b'],
    ['https://e.com/p?a=1', 'a=9&+x+=1', 'https://e.com/p?a=1&+x+=1'],
    ['https://e.com/p?a%20b=1', 'a+b=2&c=3', 'https://e.com/p?a%20b=1&c=3'],
  ])('%s + ?%s → %s (the destination wins on a shared name, pairs kept as sent)', (dest, visit, want) => {
    expect(forwardedLocation(dest, visit, true, null, null)).toBe(want);
  });

  it('adds nothing when forwarding is off, and the click id replaces a parameter of its name', () => {
    expect(forwardedLocation('https://e.com/p?a=1', 'b=2', false, null, null)).toBe('https://e.com/p?a=1');
    expect(forwardedLocation('https://e.com/p?sl=old&a=1#f', 'sl=forged&b=2', true, 'sl', 'ID')).toBe(
      'https://e.com/p?a=1&b=2&sl=ID#f',
    );
  });
});

describe('click ids', () => {
  const ids = new ClickIds(Buffer.alloc(32, 7));
  it('name their link and route, each click its own, and refuse a changed or foreign id', () => {
    const a = ids.make('lnk_1', 'rul_1');
    const b = ids.make('lnk_1', 'rul_1');
    expect(a).not.toBe(b);
    expect(ids.read(a)).toEqual({ linkId: 'lnk_1', route: 'rul_1' });
    expect(ids.read(ids.make('lnk_2', null))).toEqual({ linkId: 'lnk_2', route: null });
    const [, mac, nonce] = a.split('.');
    const other = Buffer.from('lnk_9~rul_1').toString('base64url');
    expect(ids.read(`${other}.${mac}.${nonce}`)).toBeNull();
    expect(new ClickIds(Buffer.alloc(32, 8)).read(a)).toBeNull();
    expect(ids.read('garbage')).toBeNull();
  });
});

describe('client addresses', () => {
  it('read IPv4, IPv4-mapped and IPv6 addresses and match ranges', () => {
    expect(parseAddress('::ffff:203.0.113.5')?.text).toBe('203.0.113.5');
    for (const bad of ['1.2.3', '01.2.3.4', '256.1.1.1', 'abc', '']) expect(parseAddress(bad)).toBeNull();
    const r = parseRange('203.0.113.0/24')!;
    expect(inRange(parseAddress('203.0.113.77')!, r)).toBe(true);
    expect(inRange(parseAddress('203.0.114.1')!, r)).toBe(false);
    expect(inRange(parseAddress('2001:db8::5')!, parseRange('2001:db8::/32')!)).toBe(true);
    expect(inRange(parseAddress('2001:db8::5')!, r)).toBe(false);
    expect(parseRange('10.0.0.0/33')).toBeNull();
    expect(inRange(parseAddress('255.255.255.255')!, parseRange('0.0.0.0/0')!)).toBe(true);
  });
});

describe('languages and splits', () => {
  it('take the most preferred language by q-value', () => {
    expect(preferredLanguage('fr;q=0.5, en;q=0.9')).toBe('en');
    expect(preferredLanguage('*, de;q=0')).toBeNull();
    expect(preferredLanguage('pt-BR')).toBe('pt');
  });

  it('compare two rates with a z-test and pick the winner by the metric', () => {
    const tallies = [
      { id: 'a', clicks: 1000, conversions: 100 },
      { id: 'b', clicks: 1000, conversions: 150 },
    ];
    const c = compareVariants(tallies)!;
    expect(c).toMatchObject({ leaderId: 'b', runnerUpId: 'a' });
    // z ≈ 3.38 for 10% against 15% of 1,000 each: p ≈ 0.0007.
    expect(c.pValue).toBeGreaterThan(0.0005);
    expect(c.pValue).toBeLessThan(0.001);
    // About 686 clicks per variant detect 10% against 15% at 95% and 80% power.
    expect(c.samplePerVariant).toBeGreaterThan(650);
    expect(c.samplePerVariant).toBeLessThan(720);
    expect(winnerOf('conversions', tallies)).toBe('b');
    expect(
      winnerOf('clicks', [
        { id: 'a', clicks: 5, conversions: 0 },
        { id: 'b', clicks: 5, conversions: 1 },
      ]),
    ).toBe('a');
    expect(
      compareVariants([
        { id: 'a', clicks: 3, conversions: 1 },
        { id: 'b', clicks: 0, conversions: 0 },
      ]),
    ).toBeNull();
  });
});

describe('queryParams', () => {
  // Read by hand on the redirect path: it must read every query as URLSearchParams does.
  const piece = fc.constantFrom(
    'a',
    'b',
    '=',
    '&',
    '+',
    '%',
    '%2',
    '%20',
    '%2B',
    '%C3%A9',
    '%FF',
    '%zz',
    'é',
    ' ',
    '中',
  );
  it('reads any query as URLSearchParams does', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const raw = pieces.join('');
        const wanted = new Map<string, string[]>();
        for (const [k, v] of new URLSearchParams(raw)) wanted.set(k, [...(wanted.get(k) ?? []), v]);
        expect(queryParams(raw)).toEqual(wanted);
      }),
      { numRuns: 2000 },
    );
  });

  // The query rule's test reads the text in place (queryHas), without queryParams' map.
  it('answers the query rule as URLSearchParams would', () => {
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 24 }),
        fc.constantFrom('a', 'b', 'a b', 'ab', '', 'é', '+'),
        fc.option(fc.constantFrom('', 'a', 'b', 'a b', ' ', '\uFFFD'), { nil: undefined }),
        (pieces, name, value) => {
          const raw = pieces.join('');
          const values = new URLSearchParams(raw).getAll(name);
          const wanted = value === undefined ? values.length > 0 : values.includes(value);
          expect(queryHas(raw, name, value)).toBe(wanted);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('forwarding any query', () => {
  // The rule, written plainly: the destination's own pairs (less the click id's name), then the
  // visit's non-empty pairs whose decoded name is neither one of the destination's nor the click
  // id's, as sent, then the click id; the fragment last.
  const nameOf = (pair: string) => [...new URLSearchParams(pair).keys()][0] ?? '';
  function reference(dest: string, visit: string, param: string | null, id: string | null): string {
    const hash = dest.indexOf('#');
    const base = hash === -1 ? dest : dest.slice(0, hash);
    const q = base.indexOf('?');
    const own =
      q === -1
        ? []
        : base
            .slice(q + 1)
            .split('&')
            .filter((p) => p !== '');
    const ownNames = new Set(own.map(nameOf));
    const clicked = param !== null && id !== null;
    const pairs = own.filter((p) => !(clicked && nameOf(p) === param));
    for (const p of visit.split('&'))
      if (p !== '' && !ownNames.has(nameOf(p)) && !(clicked && nameOf(p) === param)) pairs.push(p);
    if (clicked) pairs.push(`${param}=${id}`);
    if (visit === '' && !clicked) return dest;
    const path = q === -1 ? base : base.slice(0, q);
    return `${path}${pairs.length ? `?${pairs.join('&')}` : ''}${hash === -1 ? '' : dest.slice(hash)}`;
  }
  const piece = fc.constantFrom('a', 'b', 'sl', '=', '&', '+', '%20', '%61', '%73l', '%zz', '1', 'é');
  it("keeps the destination's pairs, adds the visit's other ones as sent, and the click id last", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          'https://e.com/p',
          'https://e.com/p?a=1',
          'https://e.com/p?sl=x&b=2#f',
          'https://e.com/p?a+b=1&&a=2',
        ),
        fc.array(piece, { maxLength: 16 }),
        fc.boolean(),
        (dest, pieces, click) => {
          const visit = pieces.join('');
          const [param, id] = click ? ['sl', 'ID'] : [null, null];
          expect(forwardedLocation(dest, visit, true, param, id)).toBe(reference(dest, visit, param, id));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('a compiled routing', () => {
  it('gives each destination its own parts: forwarding with them is forwarding without', () => {
    const routing = compileRouting(
      JSON.stringify({
        rules: [{ id: 'rul_1', conditions: [{ type: 'os', value: 'ios' }], url: 'https://e.com/p?a=1&sl=x#f' }],
        split: null,
        forwardQuery: true,
        indexable: false,
        clickIdParam: 'sl',
      }),
      null,
    )!;
    const rule = routing.rules[0];
    for (const query of ['a=2&b=3', 'sl=forged', '', 'c']) {
      expect(forwardedLocation(rule.location, query, true, 'sl', 'ID', rule)).toBe(
        forwardedLocation(rule.location, query, true, 'sl', 'ID'),
      );
    }
  });
});
