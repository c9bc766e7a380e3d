// Mail from the use cases: with SMTP_URL set, a change that causes a mail writes it to the outbox
// in its own transaction (src/db/repos/mail-outbox.ts), its payload sealed under MASTER_KEY since
// it may carry a link's token; the mail worker (src/jobs/mail.ts) sends it after commit.
import type { Db } from '../db/knex.ts';
import type { Config } from '../config.ts';
import { enqueueMail } from '../db/repos/mail-outbox.ts';
import type { MailPayload } from '../domain/mail.ts';
import { sealSecret } from '../webhooks/secrets.ts';

export { mailQueued } from '../jobs/mail.ts';

/** Whether this service sends mail (SMTP_URL is set). */
export const sendsMail = (config: Pick<Config, 'smtpUrl'>) => !!config.smtpUrl;

/** The payload sealed as the outbox keeps it; made before the transaction (it is pure work). */
export const sealMail = (masterKey: Buffer, payload: MailPayload) => sealSecret(masterKey, JSON.stringify(payload));

/** Writes a mail in the caller's transaction; call `mailQueued()` after it commits. */
export async function queueMail(
  trx: Db,
  to: string,
  payload: MailPayload,
  sealed: string,
  expiresAt: number,
  now: number,
): Promise<void> {
  await enqueueMail(trx, { kind: payload.kind, version: payload.version, to, payloadSealed: sealed, expiresAt }, now);
}
