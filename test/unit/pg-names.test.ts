// Which statements the redirect path names on Postgres (src/db/pg-names.ts): all of them, unless
// DATABASE_URL carries pgbouncer=true, as docs/operations.md tells an operator behind PgBouncer.
import { expect, it } from 'vitest';
import { statementNames } from '../../src/db/pg-names';

it('names statements on a direct connection, and none with pgbouncer=true', () => {
  expect(statementNames('postgres://u:p@127.0.0.1:5432/shortlink')('sl_reserve')).toBe('sl_reserve');
  expect(statementNames('postgres://u:p@127.0.0.1:5432/shortlink?sslmode=disable')('sl_qr')).toBe('sl_qr');
  expect(statementNames('postgres://u:p@127.0.0.1:6432/shortlink?pgbouncer=true')('sl_reserve')).toBeUndefined();
  expect(statementNames('postgres://u:p@h/db?sslmode=require&pgbouncer=true')('sl_qr')).toBeUndefined();
  // Only `true` turns naming off; anything else keeps the default.
  expect(statementNames('postgres://u:p@h/db?pgbouncer=false')('sl_qr')).toBe('sl_qr');
});
