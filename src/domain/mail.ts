// The service's mail (docs/dashboard.md, Mail): what each kind says, and when a mail the server
// refused is tried again. Plain functions; the outbox and the sending live in src/db/repos/
// mail-outbox.ts and src/jobs/mail.ts.

/** A reset link works once, for an hour. */
export const RESET_LINK_MS = 3_600_000;
/** At most this many reset mails an hour to one account, however many clients ask. */
export const RESET_MAILS_PER_HOUR = 3;
/** "Forgot password" requests per email and client in RESET_REQUEST_WINDOW_S (then 429). */
export const RESET_REQUESTS = 5;
export const RESET_REQUEST_WINDOW_S = 15 * 60;
/** A sign-in notice is worth sending for a day. */
export const NOTICE_MS = 24 * 3_600_000;

/**
 * Each kind's payload, versioned: a row written by one release is read by the next, so a new
 * field makes a new version and the composer keeps reading the old ones.
 */
export type MailPayload =
  | { kind: 'invitation'; version: 1; url: string; workspaceName: string; role: string; invitedBy: string | null }
  | { kind: 'password_reset'; version: 1; url: string }
  | {
      kind: 'sign_in_notice';
      version: 1;
      at: number;
      browser: string | null;
      os: string | null;
      place: string | null;
      sessionsUrl: string;
    };

export type MailKind = MailPayload['kind'];

export interface ComposedMail {
  subject: string;
  text: string;
}

const when = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

/** The subject and plain text of a mail. */
export function composeMail(payload: MailPayload): ComposedMail {
  switch (payload.kind) {
    case 'invitation':
      return {
        subject: `You are invited to ${payload.workspaceName} on Shortlink`,
        text: [
          `${payload.invitedBy ?? 'Someone'} invited you to join the workspace "${payload.workspaceName}" on Shortlink as ${payload.role}.`,
          '',
          `Open this link to join (it works once, for 7 days):`,
          payload.url,
          '',
          'If you did not expect this invitation, ignore this mail: nothing happens unless the link is opened.',
        ].join('\n'),
      };
    case 'password_reset':
      return {
        subject: 'Set a new Shortlink password',
        text: [
          'Someone (we hope you) asked to set a new password for the Shortlink account of this address.',
          '',
          'Open this link to choose one (it works once, for 1 hour; every session of the account then ends):',
          payload.url,
          '',
          'If you did not ask, ignore this mail: your password stays as it is.',
        ].join('\n'),
      };
    case 'sign_in_notice': {
      const browser = [payload.browser, payload.os].filter(Boolean).join(' on ') || 'an unknown browser';
      return {
        subject: 'New sign-in to your Shortlink account',
        text: [
          'Your Shortlink account was signed in to from a browser it had not been signed in with before.',
          '',
          `When: ${when(payload.at)}`,
          `Browser: ${browser}`,
          `Where: ${payload.place ?? 'unknown'} (roughly, from the network address)`,
          '',
          'If this was you, there is nothing to do. If not, change your password and end the sessions you do not know:',
          payload.sessionsUrl,
        ].join('\n'),
      };
    }
  }
}

/** Waits after the 1st, 2nd, ... refused attempt: 2 s doubling, at most 15 minutes. */
export function mailRetryInMs(attempts: number): number {
  return Math.min(2_000 * 2 ** Math.max(0, attempts - 1), 15 * 60_000);
}
