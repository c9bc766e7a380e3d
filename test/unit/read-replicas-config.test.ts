// DATABASE_READ_URL and DATABASE_READ_MAX_LAG_MS as the configuration reads them
// (docs/configuration.md): replicas only with Postgres, each a postgres:// URL, never echoed (a
// URL holds a password); and the WAL positions the lag is measured in.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { lsnBytes } from '../../src/db/read-replicas';

const PRIMARY = 'postgres://shortlink:secret@db1:5432/shortlink';

describe('read replica settings', () => {
  it('reads one or more replicas, comma-separated, with the lag bound', () => {
    const config = loadConfig({
      DATABASE_URL: PRIMARY,
      DATABASE_READ_URL: ' postgres://a:pw@db2/shortlink , postgresql://a:pw@db3:6432/shortlink ',
      DATABASE_READ_MAX_LAG_MS: '2_500',
    });
    expect(config.databaseReadUrls).toEqual(['postgres://a:pw@db2/shortlink', 'postgresql://a:pw@db3:6432/shortlink']);
    expect(config.databaseReadMaxLagMs).toBe(2500);
  });

  it('has no replicas and a 5 s bound by default', () => {
    const config = loadConfig({ DATABASE_URL: PRIMARY });
    expect([config.databaseReadUrls, config.databaseReadMaxLagMs]).toEqual([[], 5000]);
  });

  it('refuses replicas of SQLite', () => {
    expect(() => loadConfig({ DATA_DIR: '/tmp', DATABASE_READ_URL: 'postgres://a@db2/x' })).toThrow(
      /DATABASE_READ_URL needs a postgres:\/\/ DATABASE_URL/,
    );
  });

  it('refuses an entry that is not a postgres URL, without printing it', () => {
    let message = '';
    try {
      loadConfig({ DATABASE_URL: PRIMARY, DATABASE_READ_URL: 'postgres://a@db2/x,mysql://root:hunter2@db3/x' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe('DATABASE_READ_URL: entry 2 of 2 is not a postgres:// URL');
  });

  it.each(['0', '-5', 'soon', '999'])('refuses DATABASE_READ_MAX_LAG_MS=%s', (value) => {
    expect(() => loadConfig({ DATABASE_URL: PRIMARY, DATABASE_READ_MAX_LAG_MS: value })).toThrow(
      /DATABASE_READ_MAX_LAG_MS must be/,
    );
  });

  it('orders WAL positions by their 64-bit value', () => {
    expect(lsnBytes('0/16B3748')).toBe(0x16b3748n);
    expect(lsnBytes('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(lsnBytes('1/0') > lsnBytes('0/FFFFFFFF')).toBe(true);
  });
});
