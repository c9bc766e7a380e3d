// The IP locator (src/platform/geo.ts) on small MaxMind files written here: which addresses it
// reads (IPv4, IPv6, IPv4-mapped in both spellings, bracketed, with a zone), which it places
// nowhere (private, loopback, reserved, not an address), the two record shapes, cities, and
// what a Country database cannot answer. The packaged data is read by test/redirect/geo.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { geoLocator, mmdbMetadata } from '../../src/platform/geo';
import { cityRecord, mmdbFile } from '../support/mmdb';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-geo-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const write = (name: string, data: Buffer) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, data);
  return file;
};

// Every reserved range gets a record too: only the locator's own check keeps them unplaced.
const everywhere = cityRecord('AQ', 'Everywhere');
const city = write(
  'GeoLite2-City.mmdb',
  mmdbFile('GeoLite2-City', [
    ['::/1', everywhere],
    ['8000::/1', everywhere],
    ['0.0.0.0/1', everywhere],
    ['128.0.0.0/1', everywhere],
    ['81.2.69.0/24', cityRecord('gb', 'London')],
    ['2a02:ff00::/32', cityRecord('JP', 'Lowtown')],
    // ip-location-db's flat shape, as the packaged data has it.
    ['5.6.7.0/24', { country_code: 'FR', city: 'Paris' }],
    ['5.6.8.0/24', { country_code: 'DE', city: '' }],
  ]),
);

describe('geoLocator on a MaxMind City file', () => {
  const geo = geoLocator({ geoipDb: city });

  it('places IPv4, IPv6 and IPv4-mapped addresses in every spelling', () => {
    const london = { country: 'GB', city: 'London' };
    expect(geo.locate('81.2.69.142')).toEqual(london);
    expect(geo.locate(' 81.2.69.142 ')).toEqual(london);
    expect(geo.locate('::ffff:81.2.69.142')).toEqual(london);
    expect(geo.locate('::FFFF:5102:458e')).toEqual(london);
    expect(geo.locate('2a02:ff00::1')).toEqual({ country: 'JP', city: 'Lowtown' });
    expect(geo.locate('[2a02:ff00::1]')).toEqual({ country: 'JP', city: 'Lowtown' });
    expect(geo.locate('2a02:ff00::1%eth0')).toEqual({ country: 'JP', city: 'Lowtown' });
    expect(geo.locate('5.6.7.8')).toEqual({ country: 'FR', city: 'Paris' });
    expect(geo.locate('5.6.8.1')).toEqual({ country: 'DE', city: null });
    expect(geo.locate('9.9.9.9')).toEqual({ country: 'AQ', city: 'Everywhere' });
  });

  it('places private, loopback, link-local, shared, documentation, multicast and reserved addresses nowhere', () => {
    for (const address of [
      '0.1.2.3',
      '10.0.0.1',
      '100.64.0.1',
      '127.0.0.1',
      '169.254.1.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.2.1',
      '192.168.1.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '100::1',
      '2001:db8::1',
      '2001::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
    ])
      expect(geo.locate(address), address).toBeNull();
    // Just outside those ranges, the data answers.
    for (const address of ['172.32.0.1', '100.128.0.1', '2001:4860::1', 'fec0::1'])
      expect(geo.locate(address), address).toEqual({ country: 'AQ', city: 'Everywhere' });
  });

  it('places what is not an address nowhere', () => {
    for (const text of [
      '',
      'unknown',
      '81.2.69',
      '81.2.69.256',
      '081.2.69.142',
      '1.2.3.4.5',
      '::ffff:999.1.1.1',
      'gggg::1',
    ])
      expect(geo.locate(text), text).toBeNull();
  });

  it('knows the cities the data names, case-insensitively and exactly', () => {
    expect(geo.hasCities).toBe(true);
    expect(geo.knowsCity('london')).toBe(true);
    expect(geo.knowsCity('LOWTOWN')).toBe(true);
    expect(geo.knowsCity('Paris')).toBe(true);
    expect(geo.knowsCity('Lond')).toBe(false);
    expect(geo.knowsCity('Berlin')).toBe(false);
  });

  it('is one locator per file', () => {
    expect(geoLocator({ geoipDb: city })).toBe(geo);
    expect(geoLocator({})).not.toBe(geo);
  });
});

describe("the packaged data's city names", () => {
  it('are built on a thread of their own: the event loop keeps turning meanwhile', async () => {
    const geo = geoLocator({});
    let last = performance.now();
    let longest = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 10);
    try {
      await geo.loadCities();
      longest = Math.max(longest, performance.now() - last);
    } finally {
      clearInterval(tick);
    }
    // Built on this thread, the names take about two seconds in one turn.
    expect(longest).toBeLessThan(500);
    const started = performance.now();
    expect(geo.knowsCity('Paris')).toBe(true);
    expect(geo.knowsCity('Xyzzyville')).toBe(false);
    expect(performance.now() - started).toBeLessThan(50);
  }, 60_000);
});

describe('geoLocator on a MaxMind Country file', () => {
  const country = write(
    'GeoLite2-Country.mmdb',
    mmdbFile('GeoLite2-Country', [['81.2.69.0/24', { country: { iso_code: 'GB' } }]]),
  );
  const geo = geoLocator({ geoipDb: country });

  it('names no city and knows none', () => {
    expect(geo.hasCities).toBe(false);
    expect(geo.locate('81.2.69.142')).toEqual({ country: 'GB', city: null });
    expect(geo.knowsCity('London')).toBe(false);
  });
});

describe('mmdbMetadata', () => {
  it('reads the type of a MaxMind file and names GEOIP_DB for a file it cannot use', () => {
    expect(mmdbMetadata(city)).toEqual({ databaseType: 'GeoLite2-City', ipVersion: 6 });
    expect(() => mmdbMetadata(path.join(dir, 'none.mmdb'))).toThrow(/^GEOIP_DB: cannot read .*none\.mmdb \(ENOENT/);
    const text = write('not.mmdb', Buffer.from('not a database'));
    expect(() => mmdbMetadata(text)).toThrow(/^GEOIP_DB: .*not\.mmdb is not a MaxMind database \(\.mmdb\)$/);
  });
});
