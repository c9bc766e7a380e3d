// The mail worker that runs in every `shortlink serve` process when SMTP_URL is set: it claims
// due rows of the mail outbox with a lease (src/db/repos/mail-outbox.ts), composes each kind's
// text (src/domain/mail.ts), hands it to the mail server through nodemailer, deletes the row
// once the server accepted it, and on a refusal or an unreachable server tries again later
// (mailRetryInMs). Mails whose link has expired are dropped unsent. SMTP_URL is never logged.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Db, Engine } from '../db/knex.ts';
import * as outbox from '../db/repos/mail-outbox.ts';
import { composeMail, mailRetryInMs, type MailPayload } from '../domain/mail.ts';

/** What sends one message: nodemailer's transport in `serve`. */
export interface MailTransport {
  sendMail(message: { from: string; to: string; subject: string; text: string }): Promise<unknown>;
  close?(): void;
}

export interface MailWorkerOptions {
  knex: Db;
  engine: Engine;
  log: Logger;
  transport: MailTransport;
  from: string;
  /** Opens a sealed payload (MASTER_KEY); the caller seals with the same key. */
  open(sealed: string): string;
  pollMs?: number;
}

/** Long enough for a slow mail server to answer; a row whose lease ran out is sent by anyone. */
const LEASE_MS = 60_000;
const BATCH = 10;
const DEFAULT_POLL_MS = 1_000;

const running = new Set<MailWorker>();

/** Tells this process's workers that mail was just committed, so they send it now. */
export function mailQueued(): void {
  for (const w of running) w.nudge();
}

/** nodemailer's SMTP transport for SMTP_URL (smtp:// with STARTTLS when offered, smtps://). */
export function smtpTransport(smtpUrl: string): MailTransport {
  return nodemailer.createTransport(smtpUrl);
}

export class MailWorker {
  readonly owner = `${os.hostname().slice(0, 32)}:${process.pid}:${randomBytes(6).toString('hex')}`;
  /** Mails the server accepted from this process. */
  sent = 0;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private active = false;

  constructor(private readonly o: MailWorkerOptions) {}

  start(): void {
    this.active = true;
    running.add(this);
    this.schedule(0);
  }

  nudge(): void {
    if (this.active) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.active = false;
    running.delete(this);
    clearTimeout(this.timer);
    await this.ticking;
    this.o.transport.close?.();
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return;
    }
    let full = false;
    this.ticking = this.round()
      .then((n) => {
        full = n === BATCH;
      })
      .catch((err) => this.o.log.warn({ err: errorText(err) }, 'mail outbox poll failed'));
    await this.ticking;
    this.ticking = undefined;
    if (!this.active) return;
    const soon = this.again || full;
    this.again = false;
    this.schedule(soon ? 0 : (this.o.pollMs ?? DEFAULT_POLL_MS));
  }

  /** One claim and its sends; the number claimed. */
  private async round(): Promise<number> {
    const { knex, engine, log } = this.o;
    const now = Date.now();
    for (const dropped of await outbox.dropExpiredMails(knex, now))
      log.warn(
        { mail: dropped.id, kind: dropped.kind },
        'mail dropped unsent: its link expired before a server took it',
      );
    const claimed = await outbox.claimDueMails(knex, engine, {
      owner: this.owner,
      now,
      leaseMs: LEASE_MS,
      limit: BATCH,
    });
    await Promise.all(claimed.map((m) => this.send(m)));
    return claimed.length;
  }

  private async send(mail: outbox.ClaimedMail): Promise<void> {
    const { knex, log } = this.o;
    try {
      const payload = JSON.parse(this.o.open(mail.payloadSealed)) as MailPayload;
      const { subject, text } = composeMail(payload);
      await this.o.transport.sendMail({ from: this.o.from, to: mail.to, subject, text });
    } catch (err) {
      const retryInMs = mailRetryInMs(mail.attempts);
      log.warn(
        { mail: mail.id, kind: mail.kind, attempt: mail.attempts, retryInMs, err: errorText(err) },
        'mail not accepted; it will be tried again',
      );
      await outbox.mailFailed(knex, mail.id, this.owner, Date.now() + retryInMs, errorText(err));
      return;
    }
    await outbox.mailSent(knex, mail.id, this.owner);
    this.sent++;
    log.info({ mail: mail.id, kind: mail.kind }, 'mail sent');
  }
}

/** An error's message and code only: nodemailer's objects may carry the connection's settings. */
function errorText(err: unknown): string {
  const e = err as { message?: string; code?: string; responseCode?: number };
  return [e.code, e.responseCode, e.message ?? String(err)].filter((x) => x !== undefined).join(' ');
}
