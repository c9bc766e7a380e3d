// A real SMTP server on loopback (smtp-server from npm) that keeps every mail it accepts, for the
// suites of the service's mail. Plain SMTP without STARTTLS: on loopback nothing crosses a network,
// and AUTH is allowed without TLS so that SMTP_URL's user and password are exercised.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** Who the server's AUTH saw. */
  user: string | undefined;
  subject: string;
  /** The text body, its transfer encoding undone. */
  text: string;
}

export interface TestSmtp {
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** How many of the next messages to refuse (451, "try again later"). */
  refuseNext(n: number): void;
  /** Waits for a mail to `to` matching `subject`, up to `ms`; the first not already taken. */
  waitFor(to: string, subject?: RegExp, ms?: number): Promise<ReceivedMail>;
  /** The mails to `to`. */
  to(address: string): ReceivedMail[];
  close(): Promise<void>;
}

export const SMTP_USER = 'shortlink';
export const SMTP_PASSWORD = 'smtp-secret-Pa55word';

/** Undoes quoted-printable (nodemailer's choice for long lines) and reads the headers. */
export function parseMail(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  let body = raw.slice(split + 4);
  const subject = /^Subject: (.*)$/im.exec(head)?.[1] ?? '';
  if (/^Content-Transfer-Encoding: quoted-printable/im.test(head))
    body = Buffer.from(
      body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h) => String.fromCharCode(Number.parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  else if (/^Content-Transfer-Encoding: base64/im.test(head)) body = Buffer.from(body, 'base64').toString('utf8');
  return { subject: decodeSubject(subject), text: body };
}

function decodeSubject(subject: string): string {
  return subject.replace(/=\?utf-8\?Q\?([^?]*)\?=/gi, (_m, q: string) =>
    Buffer.from(
      q.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/g, (_x, h) => String.fromCharCode(Number.parseInt(h, 16))),
      'latin1',
    ).toString('utf8'),
  );
}

/** The first link under the service's /app/ in a mail. */
export function linkIn(mail: ReceivedMail): URL {
  const match = /https:\/\/\S+\/app\/\S+/.exec(mail.text);
  if (!match) throw new Error(`no link in the mail "${mail.subject}": ${mail.text}`);
  return new URL(match[0]);
}

export async function startSmtp(): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  let refusals = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD)
        return callback(null, { user: auth.username });
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refusals > 0) {
          refusals--;
          return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
        }
        const { subject, text } = parseMail(Buffer.concat(chunks).toString('utf8'));
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          subject,
          text,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`,
    port,
    mails,
    refuseNext(n) {
      refusals = n;
    },
    to: (address) => mails.filter((m) => m.to.includes(address)),
    async waitFor(to, subject, ms = 15_000) {
      const end = Date.now() + ms;
      for (;;) {
        const found = mails.find((m) => !taken.has(m) && m.to.includes(to) && (!subject || subject.test(m.subject)));
        if (found) {
          taken.add(found);
          return found;
        }
        if (Date.now() > end) throw new Error(`no mail to ${to}${subject ? ` matching ${subject}` : ''} in ${ms} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
