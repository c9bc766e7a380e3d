// Second factors (openapi/dashboard.yaml, Second factors): enrolling an authenticator app,
// recovery codes, the second step of signing in, and a workspace's requirement. Every change of
// state is one transaction (an audit entry can join it); the app's secret is sealed with
// MASTER_KEY as webhook secrets are, and codes are kept only as hashes.
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import QRCode from 'qrcode';
import { createAttemptLimiter, refundAttempt, takeAttempt } from '../db/attempt-limiter.ts';
import * as accounts from '../db/repos/accounts.ts';
import * as factors from '../db/repos/second-factors.ts';
import { hasPasskey } from '../db/repos/passkeys.ts';
import type { Database, DbTransaction } from '../db/knex.ts';
import { AppError, conflict, invalid, rateLimited, tooManyWrongPasswords, unauthenticated } from '../domain/errors.ts';
import { verifyPassword } from '../domain/passwords.ts';
import {
  acceptedTotpStep,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  SECOND_FACTOR_ATTEMPTS,
  SECOND_FACTOR_PENDING_MS,
  SECOND_FACTOR_WINDOW_S,
  type CodeMethod,
  type SecondFactorMethod,
  totpUri,
} from '../domain/second-factors.ts';
import { normalizeEmail, SIGN_IN_ATTEMPTS } from '../domain/sessions.ts';
import { openSecret, sealSecret } from '../webhooks/secrets.ts';

export interface SecondFactorDeps {
  db: Database;
  masterKey: Buffer;
  config: { publicUrl: string };
  /** Wrong sign-in passwords per email and client: a wrong password here counts there too. */
  signInThrottle: RateLimiterAbstract;
}

/** Who is asking, as the account operations need them. */
export interface Person {
  userId: string;
  email: string;
}

/** The proof a change to the factors asks for: the password or a current code of the app. */
export interface Proof {
  password?: string;
  code?: string;
}

/** 403 for a session held back by a workspace's requirement; `code` lets the dashboard lead to enrolment. */
export const secondFactorRequired = (workspaces: Array<{ name: string }>) =>
  new AppError(
    'forbidden',
    `${workspaces.map((w) => w.name).join(', ')} ${workspaces.length === 1 ? 'requires' : 'require'} a second factor: set up an authenticator app or add a passkey in Account before anything else`,
    { publicCode: 'second_factor_required' },
  );

const tooManyWrongCodes = (waitSeconds: number) => {
  const minutes = Math.ceil(waitSeconds / 60);
  return rateLimited(`Too many wrong codes. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
    limit: SECOND_FACTOR_ATTEMPTS,
    remaining: 0,
    resetSeconds: waitSeconds,
  });
};

export function secondFactorOperations(deps: SecondFactorDeps) {
  const { knex } = deps.db;
  // Per person, whatever the client: whoever guesses codes already has the password.
  const codeThrottle = createAttemptLimiter(deps.db, 'second-factor', SECOND_FACTOR_ATTEMPTS, SECOND_FACTOR_WINDOW_S);
  const issuer = `Shortlink (${new URL(deps.config.publicUrl).host})`;

  /** Runs `check` as one throttled attempt of the person's: a wrong answer (false) uses it up. */
  async function throttledCode<T>(userId: string, check: () => Promise<T | null>): Promise<T | null> {
    const wait = await takeAttempt(codeThrottle, userId);
    if (wait > 0) throw tooManyWrongCodes(wait);
    const result = await check();
    if (result !== null) await refundAttempt(codeThrottle, userId);
    return result;
  }

  const secretOf = (row: factors.TotpFactorRow | undefined) =>
    row?.secret_sealed ? openSecret(deps.masterKey, row.secret_sealed) : null;

  /** Accepts a code of the person's app once, in `trx`: false for a wrong, old or used one. */
  async function acceptTotp(trx: typeof knex, userId: string, code: string, now: number): Promise<boolean> {
    const row = await factors.totpFactorOf(trx, userId);
    const secret = secretOf(row);
    if (!secret) return false;
    const step = acceptedTotpStep(secret, code, now, row!.last_step);
    return step !== null && (await factors.useTotpStep(trx, userId, step));
  }

  /** Checks the proof a change asks for, throttled as its kind is; throws 400 naming the field. */
  async function checkProof(person: Person, proof: Proof, client: string, now: number): Promise<void> {
    if (proof.password !== undefined) {
      const key = `${normalizeEmail(person.email)}:${client}`;
      const wait = await takeAttempt(deps.signInThrottle, key);
      if (wait > 0) throw tooManyWrongPasswords(wait, SIGN_IN_ATTEMPTS);
      const user = await accounts.findUser(knex, person.userId);
      if (!user?.password_hash || !(await verifyPassword(proof.password, user.password_hash)))
        throw invalid('That password is not correct', 'password');
      await refundAttempt(deps.signInThrottle, key);
      return;
    }
    if (proof.code === undefined) throw invalid('Send your password or a code of your app', 'password');
    const ok = await throttledCode(person.userId, async () =>
      (await acceptTotp(knex, person.userId, proof.code!, now)) ? true : null,
    );
    if (!ok) throw invalid('That code is not correct', 'code');
  }

  async function freshRecoveryCodes(trx: typeof knex, userId: string, now: number): Promise<string[]> {
    const codes = newRecoveryCodes();
    await factors.replaceRecoveryCodes(trx, userId, codes.map(recoveryCodeHash), now);
    return codes;
  }

  /** The methods the second step of signing in takes for this person; empty without a factor. */
  async function methodsOf(userId: string): Promise<SecondFactorMethod[]> {
    const [passkey, app, left] = await Promise.all([
      hasPasskey(knex, userId),
      factors.hasTotp(knex, userId),
      factors.recoveryCodesLeft(knex, userId),
    ]);
    const methods: SecondFactorMethod[] = passkey ? ['passkey'] : [];
    if (app) methods.push(...(left > 0 ? (['totp', 'recovery'] as const) : (['totp'] as const)));
    return methods;
  }

  async function requirement(workspaceId: string) {
    const [requireSecondFactor, membersWithoutFactor] = await Promise.all([
      factors.requiresSecondFactor(knex, workspaceId),
      factors.membersWithoutFactor(knex, workspaceId),
    ]);
    return { requireSecondFactor, membersWithoutFactor };
  }

  return {
    methodsOf,
    requirement,

    async status(userId: string) {
      const [row, left, requiredBy, methods] = await Promise.all([
        factors.totpFactorOf(knex, userId),
        factors.recoveryCodesLeft(knex, userId),
        factors.requiringWorkspaces(knex, userId),
        methodsOf(userId),
      ]);
      const app = !!row?.secret_sealed;
      // Any factor counts (an app or a passkey): methodsOf lists every one the person has.
      const enabled = methods.length > 0;
      return {
        enabled,
        methods,
        totp: { enabled: app, enabledAt: app && row?.enabled_at ? new Date(row.enabled_at).toISOString() : null },
        recoveryCodesLeft: app ? left : 0,
        requiredBy: requiredBy.map((w) => ({ id: w.id, name: w.name })),
        restricted: !enabled && requiredBy.length > 0,
      };
    },

    /** A new secret kept sealed beside the app in use until a code confirms it. */
    async startEnrolment(person: Person, now: number) {
      const secret = newTotpSecret();
      await factors.startTotpEnrolment(knex, person.userId, sealSecret(deps.masterKey, secret), now);
      const otpauthUri = totpUri(secret, issuer, person.email);
      const svg = await QRCode.toString(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      return {
        otpauthUri,
        qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
        secret,
        issuer,
        label: person.email,
      };
    },

    /** Turns the started secret on with a current code; the ten recovery codes, shown once. */
    async confirmEnrolment(userId: string, code: string, now: number, also?: Also): Promise<string[]> {
      const row = await factors.totpFactorOf(knex, userId);
      if (!row?.pending_sealed) throw conflict('Start setting up an authenticator app first');
      const pending = row.pending_sealed;
      const step = await throttledCode(userId, async () =>
        acceptedTotpStep(openSecret(deps.masterKey, pending), code, now, null),
      );
      if (step === null) throw invalid('That code is not correct: type the six digits your app shows now', 'code');
      const codes = await knex.transaction(async (trx) => {
        const recovery = newRecoveryCodes();
        const done = await factors.confirmTotpEnrolment(
          trx,
          userId,
          pending,
          step,
          recovery.map(recoveryCodeHash),
          now,
        );
        if (done) await also?.(trx);
        return done ? recovery : null;
      });
      if (!codes) throw conflict('The set-up was started again meanwhile: scan the new QR code');
      return codes;
    },

    async disable(person: Person, proof: Proof, client: string, now: number, also?: Also): Promise<void> {
      if (!(await factors.hasTotp(knex, person.userId))) throw conflict('No second factor is on');
      // A passkey left keeps the person's second factor: only the last factor is held back.
      const requiring = (await hasPasskey(knex, person.userId))
        ? []
        : await factors.requiringWorkspaces(knex, person.userId);
      if (requiring.length > 0)
        throw conflict(
          `${requiring.map((w) => w.name).join(', ')} ${requiring.length === 1 ? 'requires' : 'require'} a second factor: it cannot be turned off`,
        );
      await checkProof(person, proof, client, now);
      await knex.transaction(async (trx) => {
        await factors.removeSecondFactor(trx, person.userId);
        await also?.(trx);
      });
    },

    async regenerateRecoveryCodes(
      person: Person,
      proof: Proof,
      client: string,
      now: number,
      also?: Also,
    ): Promise<string[]> {
      if (!(await factors.hasTotp(knex, person.userId))) throw conflict('No second factor is on');
      await checkProof(person, proof, client, now);
      return knex.transaction(async (trx) => {
        const codes = await freshRecoveryCodes(trx, person.userId, now);
        await also?.(trx);
        return codes;
      });
    },

    /** After the right password: a pending sign-in's token, when the person has a factor. */
    async challenge(userId: string, now: number) {
      const methods = await methodsOf(userId);
      if (methods.length === 0) return null;
      const token = await factors.createChallenge(knex, userId, now, SECOND_FACTOR_PENDING_MS);
      return { token, methods, expiresAt: now + SECOND_FACTOR_PENDING_MS };
    },

    /**
     * The second step: a right code ends the pending sign-in and starts the session, in one
     * transaction. A wrong code leaves the pending sign-in for another try (throttled).
     */
    async completeSignIn<T>(
      token: string | undefined,
      method: CodeMethod,
      code: string,
      now: number,
      /** Starts the session in the transaction that ends the pending sign-in. */
      start: (trx: DbTransaction, userId: string) => Promise<T>,
    ): Promise<T> {
      const expired = () => unauthenticated('This sign-in has expired: enter your password again');
      const userId = token ? await factors.challengeUser(knex, token, now) : undefined;
      if (!userId) throw expired();
      const started = await throttledCode(userId, () =>
        knex.transaction(async (trx) => {
          const accepted =
            method === 'totp'
              ? await acceptTotp(trx, userId, code, now)
              : await factors.useRecoveryCode(trx, userId, recoveryCodeHash(code), now);
          if (!accepted) return null;
          // Single use: of two requests with the same pending cookie, one ends it.
          if (!(await factors.endChallenge(trx, token!))) throw expired();
          return start(trx, userId);
        }),
      );
      if (!started)
        throw invalid(
          method === 'totp' ? 'That code is not correct' : 'That recovery code is not correct or was used already',
          'code',
        );
      return started;
    },

    /** An OWNER turns the requirement on or off; on only with a factor of their own. */
    async setRequirement(workspaceId: string, ownerId: string, required: boolean, also?: Also) {
      if (required && !(await factors.hasSecondFactor(knex, ownerId)))
        throw conflict(
          'Set up your own authenticator app or passkey (Account) before requiring a second factor: you would shut yourself out',
        );
      await knex.transaction(async (trx) => {
        await factors.setRequirement(trx, workspaceId, required);
        await also?.(trx);
      });
      return requirement(workspaceId);
    },
  };
}

export type SecondFactorOperations = ReturnType<typeof secondFactorOperations>;
/** Written in the change's own transaction (its audit entry). */
type Also = (trx: DbTransaction) => Promise<void>;
