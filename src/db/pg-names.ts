// The redirect path's statements on Postgres are named: pg prepares a named statement once per
// connection and afterwards only binds it, so the server neither parses nor plans a lookup again
// (a cache miss's cost to Postgres: docs/operations.md, Through PgBouncer). Behind a pooler in transaction mode without prepared-statement
// support (PgBouncer before 1.21, or without max_prepared_statements; docs/operations.md) the next
// statement may run on another server connection, where that name is unknown: a DATABASE_URL with
// `pgbouncer=true` (Prisma's spelling of the same switch) leaves every statement unnamed.
export type StatementName = (name: string) => string | undefined;

export function statementNames(url: string): StatementName {
  let pooled = false;
  try {
    pooled = new URL(url).searchParams.get('pgbouncer') === 'true';
  } catch {
    // Not a URL pg would take either: it fails on connecting, with its own message.
  }
  return pooled ? () => undefined : (name) => name;
}
