// Named leases over several processes on one database: the background work that only one process
// may do at a time (the click fold, partition DDL) takes one and keeps it while it works; a
// process that stops holding it (a crash, even `kill -9`) loses it when it runs out. The rows live
// in click_fold_lease (migration 20261126000000), whose first lease was the fold's; a name is at
// most 16 characters.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/** Thrown when a lease ran out and another process may have taken it: the work stops. */
export class LostLease extends Error {}

export interface Lease {
  /** Renews the lease when a third of it has passed; throws LostLease when another took it. */
  keep(): Promise<void>;
  /** Lets the next process take it at once. */
  release(): Promise<void>;
}

/** The lease `name` for `ms`, or undefined while another process holds it. */
export async function takeLease(knex: Knex, name: string, ms: number): Promise<Lease | undefined> {
  const holder = randomUUID();
  const take = async () =>
    (await knex('click_fold_lease')
      .where('name', name)
      .where((w) => w.where('expires_at', '<', Date.now()).orWhere('holder', holder))
      .update({ holder, expires_at: Date.now() + ms })) === 1;
  await knex.raw(
    `INSERT INTO click_fold_lease (name, holder, expires_at) VALUES (?, '', 0) ON CONFLICT (name) DO NOTHING`,
    [name],
  );
  if (!(await take())) return undefined;
  let renewed = Date.now();
  return {
    async keep() {
      if (Date.now() - renewed < ms / 3) return;
      if (!(await take())) throw new LostLease(`the ${name} lease ran out`);
      renewed = Date.now();
    },
    async release() {
      await knex('click_fold_lease').where({ name, holder }).update({ expires_at: 0 });
    },
  };
}
