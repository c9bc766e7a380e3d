// The mail outbox (migration 20270105000000): a mail is a row written in the transaction of the
// change that causes it (an invitation, a reset link, a sign-in), so it exists exactly when its
// change does. The mail worker (src/jobs/mail.ts) claims due rows with a lease, so several
// processes on one Postgres never send a row at once, and deletes a row once the mail server
// accepted it. A process that dies between the server's acceptance and the delete leaves the
// row to be sent again when its lease runs out: a mail may arrive twice, never not at all.
import type { Knex } from 'knex';
import { newId } from '../../domain/ids.ts';
import type { MailKind } from '../../domain/mail.ts';
import type { Engine } from '../knex.ts';

const TABLE = 'mail_outbox';
const rowsOf = (result: any): any[] => (Array.isArray(result) ? result : result.rows);

export interface QueuedMail {
  kind: MailKind;
  version: number;
  to: string;
  /** The payload as JSON, sealed under MASTER_KEY: it may hold a link's token. */
  payloadSealed: string;
  expiresAt: number;
}

/** Writes a mail to send, in the caller's transaction. */
export async function enqueueMail(trx: Knex, mail: QueuedMail, now: number): Promise<string> {
  const id = newId('mail');
  await trx(TABLE).insert({
    id,
    kind: mail.kind,
    version: mail.version,
    recipient: mail.to,
    payload_sealed: mail.payloadSealed,
    created_at: now,
    expires_at: mail.expiresAt,
    next_attempt_at: now,
    attempts: 0,
    lease_owner: null,
    lease_until: null,
    last_error: null,
  });
  return id;
}

export interface ClaimedMail {
  id: string;
  kind: MailKind;
  version: number;
  to: string;
  payloadSealed: string;
  attempts: number;
}

/**
 * Claims up to `limit` due mails for `owner` until `now + leaseMs`: a due row is one whose next
 * attempt has come and whose lease, if any, has run out (its process stopped mid-send).
 */
export async function claimDueMails(
  knex: Knex,
  engine: Engine,
  o: { owner: string; now: number; leaseMs: number; limit: number },
): Promise<ClaimedMail[]> {
  const due = (q: Knex.QueryBuilder) =>
    q.where('next_attempt_at', '<=', o.now).where((w) => w.whereNull('lease_until').orWhere('lease_until', '<', o.now));
  // A read first: an idle outbox then never takes SQLite's write lock (see webhook-deliveries.ts).
  if (!(await due(knex(TABLE)).first('id'))) return [];
  const lock = engine === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  const rows = rowsOf(
    await knex.raw(
      `UPDATE ${TABLE} SET lease_owner = ?, lease_until = ?, attempts = attempts + 1
        WHERE id IN (SELECT id FROM ${TABLE}
                      WHERE next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
                      ORDER BY next_attempt_at LIMIT ? ${lock})
          AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
    RETURNING id, kind, version, recipient, payload_sealed, attempts`,
      [o.owner, o.now + o.leaseMs, o.now, o.now, o.limit, o.now, o.now],
    ),
  );
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    version: Number(r.version),
    to: r.recipient,
    payloadSealed: r.payload_sealed,
    attempts: Number(r.attempts),
  }));
}

/** The mail server accepted it: the row goes (only while this owner still holds it). */
export async function mailSent(knex: Knex, id: string, owner: string): Promise<void> {
  await knex(TABLE).where({ id, lease_owner: owner }).delete();
}

/** Refused or unreachable: tried again at `retryAt`, the error kept for the operator. */
export async function mailFailed(knex: Knex, id: string, owner: string, retryAt: number, error: string): Promise<void> {
  await knex(TABLE)
    .where({ id, lease_owner: owner })
    .update({ lease_owner: null, lease_until: null, next_attempt_at: retryAt, last_error: error.slice(0, 1000) });
}

/** Mails no longer worth sending (their link has expired), not in anyone's hands: dropped. */
export async function dropExpiredMails(knex: Knex, now: number): Promise<Array<{ id: string; kind: string }>> {
  const rows = await knex(TABLE)
    .where('expires_at', '<', now)
    .where((w) => w.whereNull('lease_until').orWhere('lease_until', '<', now))
    .select('id', 'kind');
  if (rows.length)
    await knex(TABLE)
      .whereIn(
        'id',
        rows.map((r) => r.id),
      )
      .where('expires_at', '<', now)
      .delete();
  return rows;
}
