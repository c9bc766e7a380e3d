// Passkeys (openapi/dashboard.yaml, Second factors; WebAuthn through @simplewebauthn/server):
// adding one, signing in with one alone, one as the second step, renaming and removing.
//
// What must stay true:
// - Every challenge is the library's random value, kept only as its SHA-256 with what it was made
//   for (and whom): an answer is accepted once, within CHALLENGE_MS, for that ceremony only. It is
//   used up before the answer is checked, so a wrong answer cannot be retried with it.
// - The RP ID is PUBLIC_URL's host name; an answer's origin must be PUBLIC_URL's, or that of the
//   request when it has the same host name (a port the proxy or a test put in front).
// - User verification is required everywhere: a passkey so used is two factors, so signing in
//   with one alone gives a full session.
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { createAttemptLimiter, refundAttempt, takeAttempt } from '../db/attempt-limiter.ts';
import type { Database, DbTransaction } from '../db/knex.ts';
import * as accounts from '../db/repos/accounts.ts';
import * as passkeys from '../db/repos/passkeys.ts';
import { passwordSignInOff } from '../db/repos/sso.ts';
import * as factors from '../db/repos/second-factors.ts';
import { AppError, conflict, forbidden, invalid, notFound, rateLimited, unauthenticated } from '../domain/errors.ts';
import { SECOND_FACTOR_ATTEMPTS, SECOND_FACTOR_WINDOW_S } from '../domain/second-factors.ts';
import { hashSecret } from '../domain/sessions.ts';

/** A challenge is answered within 5 minutes or not at all. */
export const CHALLENGE_MS = 5 * 60_000;
/** Passkeys per person: more than anyone needs, few enough to list and to name in options. */
export const MAX_PASSKEYS = 20;
/** A sign-in removing a passkey must be this recent. */
export const RECENT_SIGN_IN_MS = 15 * 60_000;
/** Wrong answers to a sign-in by passkey alone, per client (no person is known before it). */
export const PASSKEY_SIGN_IN_ATTEMPTS = 10;
const PASSKEY_SIGN_IN_WINDOW_S = 15 * 60;
/** Sign-in options per client per minute: each stores a challenge, and asking needs no session. */
export const PASSKEY_OPTIONS_PER_MINUTE = 30;
const RP_NAME = 'Shortlink';
/** ES256 and RS256: what platform authenticators and security keys make. */
const ALGORITHMS = [-7, -257];

export interface PasskeyDeps {
  db: Database;
  config: { publicUrl: string };
}

/** Who is asking, as adding a passkey needs them. */
export interface Person {
  userId: string;
  email: string;
}

export interface PasskeyView {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

const view = (p: passkeys.PasskeyRow): PasskeyView => ({
  id: p.id,
  name: p.name,
  createdAt: new Date(p.createdAt).toISOString(),
  lastUsedAt: p.lastUsedAt === null ? null : new Date(p.lastUsedAt).toISOString(),
});

type Credential = { id: string; rawId: string; type: string; response: { clientDataJSON: string } };

/** What a sign-in needs of its caller: start the session in the transaction, record a failure. */
export interface SignInHooks<T> {
  start: (trx: DbTransaction, userId: string) => Promise<T>;
  /** A wrong answer signed for (or claiming) a person who exists: their audit entry. */
  failed: (userId: string) => void;
}

const notVerified = (why = 'This passkey could not be verified') => invalid(why, 'credential');
const tooManyAttempts = (wait: number, limit: number) => {
  const minutes = Math.ceil(wait / 60);
  return rateLimited(`Too many failed passkey sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
    limit,
    remaining: 0,
    resetSeconds: wait,
  });
};

/** The challenge a response answers, from its client data; undefined when unreadable. */
function challengeOf(credential: Credential): string | undefined {
  try {
    const data = JSON.parse(isoBase64URL.toUTF8String(credential.response.clientDataJSON));
    return typeof data?.challenge === 'string' && data.challenge.length > 0 ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

export function passkeyOperations(deps: PasskeyDeps) {
  const { knex } = deps.db;
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  const rpID = new URL(deps.config.publicUrl).hostname;
  const optionsThrottle = createAttemptLimiter(deps.db, 'passkey-options', PASSKEY_OPTIONS_PER_MINUTE, 60);
  const signInThrottle = createAttemptLimiter(
    deps.db,
    'passkey-sign-in',
    PASSKEY_SIGN_IN_ATTEMPTS,
    PASSKEY_SIGN_IN_WINDOW_S,
  );
  // The same budget as wrong codes of the app (src/operations/second-factors.ts): one per person.
  const secondStepThrottle = createAttemptLimiter(
    deps.db,
    'second-factor',
    SECOND_FACTOR_ATTEMPTS,
    SECOND_FACTOR_WINDOW_S,
  );

  function origins(requestOrigin: string): string[] {
    try {
      const asked = new URL(requestOrigin);
      if (asked.protocol === 'https:' && asked.hostname === rpID && asked.origin !== publicOrigin)
        return [publicOrigin, asked.origin];
    } catch {
      // Not a URL: PUBLIC_URL's origin alone.
    }
    return [publicOrigin];
  }

  async function keepChallenge(challenge: string, purpose: passkeys.ChallengePurpose, userId: string | null) {
    const now = Date.now();
    await passkeys.saveChallenge(knex, hashSecret(challenge), purpose, userId, now, now + CHALLENGE_MS);
    return new Date(now + CHALLENGE_MS).toISOString();
  }

  /** Uses up the challenge the answer names, made for `purpose` (and `userId`); else 400. */
  async function spendChallenge(credential: Credential, purpose: passkeys.ChallengePurpose, userId: string | null) {
    const challenge = challengeOf(credential);
    if (!challenge) throw notVerified();
    if (!(await passkeys.takeChallenge(knex, hashSecret(challenge), purpose, userId, Date.now())))
      throw notVerified('This passkey request has expired or was used already: start again');
    return challenge;
  }

  async function verifyAssertion(
    credential: Credential,
    passkey: passkeys.PasskeyRow,
    challenge: string,
    requestOrigin: string,
  ): Promise<number> {
    try {
      const { verified, authenticationInfo } = await verifyAuthenticationResponse({
        response: credential as unknown as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: origins(requestOrigin),
        expectedRPID: rpID,
        requireUserVerification: true,
        credential: {
          id: passkey.credentialId,
          publicKey: isoBase64URL.toBuffer(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports as never,
        },
      });
      if (!verified) throw notVerified();
      return authenticationInfo.newCounter;
    } catch (err) {
      // The library throws for anything malformed, forged or replayed: all the client's fault.
      if (err instanceof AppError) throw err;
      throw notVerified();
    }
  }

  /**
   * Checks an assertion of `passkey`, then `check` (a refusal that must not come before the
   * signature), then in one transaction moves its counter on and starts the session (`finish`
   * adds what else ends with it). A replay that lost the race is 400.
   */
  async function acceptAssertion<T>(
    credential: Credential,
    passkey: passkeys.PasskeyRow,
    challenge: string,
    requestOrigin: string,
    check: () => Promise<void>,
    finish: (trx: DbTransaction) => Promise<T>,
  ): Promise<T> {
    const newCounter = await verifyAssertion(credential, passkey, challenge, requestOrigin);
    await check();
    return knex.transaction(async (trx) => {
      if (!(await passkeys.usePasskey(trx, passkey.id, passkey.counter, newCounter, Date.now()))) throw notVerified();
      return finish(trx);
    });
  }

  return {
    async list(userId: string): Promise<PasskeyView[]> {
      return (await passkeys.passkeysOf(knex, userId)).map(view);
    },

    async registrationOptions(person: Person) {
      const existing = await passkeys.passkeysOf(knex, person.userId);
      const options = await generateRegistrationOptions({
        rpName: RP_NAME,
        rpID,
        userName: person.email,
        userDisplayName: person.email,
        // The user handle a discoverable credential answers with: the person's id.
        userID: isoBase64URL.toBuffer(isoBase64URL.fromUTF8String(person.userId)),
        timeout: CHALLENGE_MS,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        supportedAlgorithmIDs: ALGORITHMS,
      });
      const expiresAt = await keepChallenge(options.challenge, 'register', person.userId);
      return { options: options as unknown as { challenge: string }, expiresAt };
    },

    async add(
      person: Person,
      name: string,
      credential: Credential,
      requestOrigin: string,
      also?: (trx: DbTransaction, passkey: PasskeyView) => Promise<void>,
    ): Promise<PasskeyView> {
      const label = name.trim();
      if (!label) throw invalid('name must not be blank', 'name');
      const challenge = await spendChallenge(credential, 'register', person.userId);
      let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>['registrationInfo'];
      try {
        const result = await verifyRegistrationResponse({
          response: credential as unknown as RegistrationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origins(requestOrigin),
          expectedRPID: rpID,
          requireUserVerification: true,
          supportedAlgorithmIDs: ALGORITHMS,
        });
        if (!result.verified) throw notVerified();
        info = result.registrationInfo;
      } catch (err) {
        if (err instanceof AppError) throw err;
        throw notVerified();
      }
      const made = info!.credential;
      if (await passkeys.credentialTaken(knex, made.id)) throw conflict('This passkey was added already');
      if ((await passkeys.passkeysOf(knex, person.userId)).length >= MAX_PASSKEYS)
        throw conflict(`You have ${MAX_PASSKEYS} passkeys: remove one before adding another`);
      return knex.transaction(async (trx) => {
        const row = await passkeys.insertPasskey(trx, {
          userId: person.userId,
          credentialId: made.id,
          publicKey: isoBase64URL.fromBuffer(made.publicKey),
          counter: made.counter,
          transports: (made.transports ?? []) as string[],
          name: label,
          createdAt: Date.now(),
        });
        await also?.(trx, view(row));
        return view(row);
      });
    },

    async rename(
      userId: string,
      id: string,
      name: string,
      also?: (trx: DbTransaction, before: PasskeyView, after: PasskeyView) => Promise<void>,
    ): Promise<PasskeyView> {
      const label = name.trim();
      if (!label) throw invalid('name must not be blank', 'name');
      return knex.transaction(async (trx) => {
        const before = await passkeys.passkeyOf(trx, userId, id);
        if (!before) throw notFound('No such passkey');
        await passkeys.renamePasskey(trx, userId, id, label);
        const after = view({ ...before, name: label });
        await also?.(trx, view(before), after);
        return after;
      });
    },

    async remove(
      session: { id: string; userId: string },
      id: string,
      also?: (trx: DbTransaction, removed: PasskeyView) => Promise<void>,
    ) {
      const passkey = await passkeys.passkeyOf(knex, session.userId, id);
      if (!passkey) throw notFound('No such passkey');
      const started = await passkeys.sessionStartedAt(knex, session.id);
      if (started === undefined || Date.now() - started > RECENT_SIGN_IN_MS)
        throw new AppError(
          'forbidden',
          'Removing a passkey needs a recent sign-in: sign out, sign in again and retry',
          {
            publicCode: 'recent_sign_in_required',
          },
        );
      await knex.transaction(async (trx) => {
        if (!(await passkeys.deletePasskey(trx, session.userId, id))) throw notFound('No such passkey');
        // The last factor of someone a workspace holds to one stays (checked after the delete, in
        // the same transaction, so two removals at once cannot both pass).
        if (!(await factors.hasSecondFactor(trx, session.userId))) {
          const requiring = await factors.requiringWorkspaces(trx, session.userId);
          if (requiring.length > 0)
            throw conflict(
              `${requiring.map((w) => w.name).join(', ')} ${requiring.length === 1 ? 'requires' : 'require'} a second factor: this is your last one`,
            );
        }
        await also?.(trx, view(passkey));
      });
    },

    /** Options for a sign-in by passkey alone (discoverable credentials), throttled per client. */
    async signInOptions(client: string) {
      const wait = await takeAttempt(optionsThrottle, client);
      if (wait > 0)
        throw rateLimited(`Too many passkey sign-ins started. Try again in ${wait} seconds.`, {
          limit: PASSKEY_OPTIONS_PER_MINUTE,
          remaining: 0,
          resetSeconds: wait,
        });
      const options = await generateAuthenticationOptions({
        rpID,
        timeout: CHALLENGE_MS,
        userVerification: 'required',
      });
      const expiresAt = await keepChallenge(options.challenge, 'sign_in', null);
      return { options: options as unknown as { challenge: string }, expiresAt };
    },

    /** A sign-in by passkey alone: the person is the one whose passkey signed. */
    async signIn<T>(credential: Credential, client: string, requestOrigin: string, hooks: SignInHooks<T>): Promise<T> {
      const wait = await takeAttempt(signInThrottle, client);
      if (wait > 0) throw tooManyAttempts(wait, PASSKEY_SIGN_IN_ATTEMPTS);
      let claimed: string | undefined;
      try {
        const passkey = await passkeys.passkeyByCredential(knex, credential.id);
        claimed = passkey?.userId;
        const challenge = await spendChallenge(credential, 'sign_in', null);
        if (!passkey) throw notVerified('This passkey is not known here: it may have been removed');
        // The credential id found the passkey; its user handle must name the same person.
        const handle = (credential.response as { userHandle?: unknown }).userHandle;
        if (typeof handle !== 'string' || handle !== isoBase64URL.fromUTF8String(passkey.userId)) throw notVerified();
        const user = await accounts.findUser(knex, passkey.userId);
        if (!user) throw notVerified();
        const started = await acceptAssertion(
          credential,
          passkey,
          challenge,
          requestOrigin,
          async () => {
            // Asked only after a right signature, so the answer tells a guesser nothing.
            if (await passwordSignInOff(knex, user.id, user.email))
              throw forbidden('Your workspace signs in with single sign-on: use "Sign in with SSO"');
          },
          (trx) => hooks.start(trx, passkey.userId),
        );
        await refundAttempt(signInThrottle, client);
        return started;
      } catch (err) {
        if (claimed && err instanceof AppError && err.code === 'invalid') hooks.failed(claimed);
        throw err;
      }
    },

    /** Options for the second step, naming the pending person's passkeys; 401 without one. */
    async secondStepOptions(pendingToken: string | undefined) {
      const userId = pendingToken ? await factors.challengeUser(knex, pendingToken, Date.now()) : undefined;
      if (!userId) throw unauthenticated('This sign-in has expired: enter your password again');
      const mine = await passkeys.passkeysOf(knex, userId);
      const options = await generateAuthenticationOptions({
        rpID,
        timeout: CHALLENGE_MS,
        userVerification: 'required',
        allowCredentials: mine.map((p) => ({ id: p.credentialId, transports: p.transports as never })),
      });
      const expiresAt = await keepChallenge(options.challenge, 'second_factor', userId);
      return { options: options as unknown as { challenge: string }, expiresAt };
    },

    /** The second step with a passkey of the pending person: the session, ending the pending sign-in. */
    async completeSecondStep<T>(
      pendingToken: string | undefined,
      credential: Credential,
      requestOrigin: string,
      hooks: SignInHooks<T>,
    ): Promise<T> {
      const expired = () => unauthenticated('This sign-in has expired: enter your password again');
      const userId = pendingToken ? await factors.challengeUser(knex, pendingToken, Date.now()) : undefined;
      if (!userId) throw expired();
      const wait = await takeAttempt(secondStepThrottle, userId);
      if (wait > 0) throw tooManyAttempts(wait, SECOND_FACTOR_ATTEMPTS);
      try {
        const challenge = await spendChallenge(credential, 'second_factor', userId);
        // Only the pending person's own passkeys: another person's credential is not found.
        const passkey = await passkeys.passkeyByCredential(knex, credential.id, userId);
        if (!passkey) throw notVerified();
        const started = await acceptAssertion(
          credential,
          passkey,
          challenge,
          requestOrigin,
          async () => {},
          async (trx) => {
            // Single use: of two requests with the same pending cookie, one ends it.
            if (!(await factors.endChallenge(trx, pendingToken!))) throw expired();
            return hooks.start(trx, userId);
          },
        );
        await refundAttempt(secondStepThrottle, userId);
        return started;
      } catch (err) {
        if (err instanceof AppError && err.code === 'invalid') hooks.failed(userId);
        throw err;
      }
    },
  };
}

export type PasskeyOperations = ReturnType<typeof passkeyOperations>;
