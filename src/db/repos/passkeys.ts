// People's passkeys (openapi/dashboard.yaml, Second factors) and the challenges of their
// ceremonies. A passkey belongs to a person: every lookup names the person, except the one by
// credential id that a sign-in by passkey alone starts from, whose caller then checks the user
// handle. Each change is one statement, so a caller can add its audit entry in the same
// transaction by passing it as `knex`.
import type { Knex } from 'knex';
import { newId } from '../../domain/ids.ts';

export type ChallengePurpose = 'register' | 'sign_in' | 'second_factor';

export interface PasskeyRow {
  id: string;
  userId: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

function fromRow(row: any): PasskeyRow {
  let transports: string[] = [];
  try {
    transports = row.transports ? JSON.parse(row.transports) : [];
  } catch {
    // A row written by hand with something else: no hint for the browser, nothing worse.
  }
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports,
    name: row.name,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null || row.last_used_at === undefined ? null : Number(row.last_used_at),
  };
}

export async function passkeysOf(knex: Knex, userId: string): Promise<PasskeyRow[]> {
  const rows = await knex('passkeys')
    .where({ user_id: userId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(fromRow);
}

export async function hasPasskey(knex: Knex, userId: string): Promise<boolean> {
  return !!(await knex('passkeys').where({ user_id: userId }).first('id'));
}

/** The person's passkey of this id, or undefined (another person's is not theirs). */
export async function passkeyOf(knex: Knex, userId: string, id: string): Promise<PasskeyRow | undefined> {
  const row = await knex('passkeys').where({ user_id: userId, id }).first();
  return row ? fromRow(row) : undefined;
}

/**
 * The passkey of a credential id. `userId` narrows it to one person (the second step); without
 * it (a sign-in by passkey alone) the caller must check the assertion's user handle names the
 * same person.
 */
export async function passkeyByCredential(
  knex: Knex,
  credentialId: string,
  userId?: string,
): Promise<PasskeyRow | undefined> {
  const q = knex('passkeys').where({ credential_id: credentialId });
  if (userId !== undefined) q.where({ user_id: userId });
  const row = await q.first();
  return row ? fromRow(row) : undefined;
}

export async function credentialTaken(knex: Knex, credentialId: string): Promise<boolean> {
  return !!(await knex('passkeys').where({ credential_id: credentialId }).first('id'));
}

export async function insertPasskey(knex: Knex, p: Omit<PasskeyRow, 'id' | 'lastUsedAt'>): Promise<PasskeyRow> {
  const row = {
    id: newId('pk'),
    user_id: p.userId,
    credential_id: p.credentialId,
    public_key: p.publicKey,
    counter: p.counter,
    transports: JSON.stringify(p.transports),
    name: p.name,
    created_at: p.createdAt,
    last_used_at: null,
  };
  await knex('passkeys').insert(row);
  return fromRow(row);
}

/**
 * Records a sign-in with the passkey: the new counter, only forwards when the authenticator
 * keeps one (0 means it keeps none), so of two requests with the same assertion one wins.
 */
export async function usePasskey(knex: Knex, id: string, oldCounter: number, newCounter: number, now: number) {
  const n = await knex('passkeys')
    .where({ id, counter: oldCounter })
    .update({ counter: newCounter, last_used_at: now });
  return n > 0;
}

export async function renamePasskey(knex: Knex, userId: string, id: string, name: string): Promise<boolean> {
  return (await knex('passkeys').where({ user_id: userId, id }).update({ name })) > 0;
}

export async function deletePasskey(knex: Knex, userId: string, id: string): Promise<boolean> {
  return (await knex('passkeys').where({ user_id: userId, id }).delete()) > 0;
}

/** Keeps a challenge's hash with what it was made for (and whom), until `expiresAt`. */
export async function saveChallenge(
  knex: Knex,
  hash: string,
  purpose: ChallengePurpose,
  userId: string | null,
  now: number,
  expiresAt: number,
): Promise<void> {
  // Expired ones are of no use to anyone: each new one clears them, so the table stays small.
  await knex('passkey_challenges').where('expires_at', '<=', now).delete();
  await knex('passkey_challenges').insert({
    id: hash,
    purpose,
    user_id: userId,
    created_at: now,
    expires_at: expiresAt,
  });
}

/**
 * Uses up a live challenge made for `purpose` (and for `userId`, or for nobody): true for the
 * one caller that deleted it. A challenge of another purpose or person stays as it was.
 */
export async function takeChallenge(
  knex: Knex,
  hash: string,
  purpose: ChallengePurpose,
  userId: string | null,
  now: number,
): Promise<boolean> {
  const q = knex('passkey_challenges').where({ id: hash, purpose }).where('expires_at', '>', now);
  if (userId === null) q.whereNull('user_id');
  else q.where({ user_id: userId });
  return (await q.delete()) > 0;
}

/** When the session started (a removal asks for a recent sign-in). */
export async function sessionStartedAt(knex: Knex, sessionId: string): Promise<number | undefined> {
  const row = await knex('sessions').where({ id: sessionId }).first('created_at');
  return row ? Number(row.created_at) : undefined;
}
