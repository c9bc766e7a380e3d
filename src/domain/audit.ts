// The audit log's rules, without I/O: what an entry holds, how its hash is made, how an address is
// kept without being stored, and which changed fields never show their values.
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * Who made a change: a person (session), an API key acting for its owner, the operator's command
 * line, or someone not signed in (a failed sign-in names the person whose email was tried).
 */
export type AuditActorType = 'user' | 'api_key' | 'cli' | 'anonymous';

export interface AuditActor {
  type: AuditActorType;
  /** The person's id, the key's id, or null for the command line. */
  id: string | null;
  /** The person a key acts for (its owner); the person themselves for `user`. */
  userId: string | null;
  /** The client address's network (addressNetwork) and HMAC (addressHmac): never the address. */
  addressNetwork: string | null;
  addressHmac: string | null;
}

/** The command line: no person, no address. */
export const CLI_ACTOR: AuditActor = { type: 'cli', id: null, userId: null, addressNetwork: null, addressHmac: null };

/** An actor at a client address, kept as its network and HMAC under `key` (addressKey). */
export const actorAt = (
  who: Pick<AuditActor, 'type' | 'id' | 'userId'>,
  address: string | null | undefined,
  key: Buffer,
): AuditActor => ({ ...who, addressNetwork: addressNetwork(address), addressHmac: addressHmac(key, address) });

/** A field's value before and after; a secret field is listed by name with no values. */
export type FieldChange = { from?: unknown; to?: unknown; secret?: true };
export type AuditChanges = Record<string, FieldChange>;

/** Every stored column of an entry but its own hash, in the order they are hashed. */
export interface AuditEntryFields {
  id: string;
  workspaceId: string;
  seq: number;
  at: number;
  actorType: AuditActorType;
  actorId: string | null;
  actorUserId: string | null;
  action: string;
  objectType: string;
  objectId: string | null;
  /** JSON of AuditChanges, as stored. */
  changes: string;
  addressNetwork: string | null;
  addressHmac: string | null;
  prevHash: string;
}

/** The previous hash of a workspace's first entry ever. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * SHA-256 over a canonical serialisation: a JSON array of every field in a fixed order (so a
 * column added later cannot shift an old entry's bytes), the previous hash included. Verifying
 * recomputes exactly this from the stored row.
 */
export function entryHash(e: AuditEntryFields): string {
  const canonical = JSON.stringify([
    'audit-v1',
    e.id,
    e.workspaceId,
    e.seq,
    e.at,
    e.actorType,
    e.actorId,
    e.actorUserId,
    e.action,
    e.objectType,
    e.objectId,
    e.changes,
    e.addressNetwork,
    e.addressHmac,
    e.prevHash,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** Field names whose values are never written to the log, whatever object they belong to. */
const SECRET_WORD = /password|secret|token|hash|sealed|recovery|otp/i;
/** `key`, `apiKey`, `api_key`, but not `keyId` or `keyScopes`, which name no secret. */
const SECRET_KEY = /^key$|Key$|_key$/;

export const isSecretField = (name: string) => SECRET_WORD.test(name) || SECRET_KEY.test(name);

/**
 * The changes as stored: secret fields keep only their name (`{ secret: true }`), every other
 * field its values; undefined values are left out. Keys are sorted so equal changes serialise
 * equally.
 */
export function redactChanges(changes: AuditChanges | undefined): string {
  const out: AuditChanges = {};
  for (const name of Object.keys(changes ?? {}).sort()) {
    const c = changes![name];
    if (isSecretField(name) || c.secret) out[name] = { secret: true };
    else {
      const kept: FieldChange = {};
      if (c.from !== undefined) kept.from = c.from;
      if (c.to !== undefined) kept.to = c.to;
      out[name] = kept;
    }
  }
  return JSON.stringify(out);
}

/** The fields of `after` that differ from `before` (only the keys `after` names). */
export function diffFields(before: Record<string, unknown> | null, after: Record<string, unknown>): AuditChanges {
  const out: AuditChanges = {};
  for (const [name, to] of Object.entries(after)) {
    if (to === undefined) continue;
    // A new object's empty fields say nothing.
    if (!before && to === null) continue;
    const from = before ? before[name] : undefined;
    if (before && JSON.stringify(from) === JSON.stringify(to)) continue;
    out[name] = before ? { from: from ?? null, to } : { to };
  }
  return out;
}

/** Two presentations of one object: the fields that differ, but its bookkeeping (updatedAt). */
export function changedBetween(before: object, after: object): AuditChanges {
  const { updatedAt: _b, ...b } = before as Record<string, unknown>;
  const { updatedAt: _a, ...a } = after as Record<string, unknown>;
  return diffFields(b, a);
}

/** Every field of a new object as a change from nothing. */
export const createdFields = (after: Record<string, unknown>) => diffFields(null, after);

/**
 * The network an address belongs to: IPv4 /24, IPv6 /48 (an IPv4-mapped IPv6 address as IPv4).
 * Anything that is not an address (a socket without one) is kept as null.
 */
export function addressNetwork(address: string | null | undefined): string | null {
  if (!address) return null;
  let a = address.trim();
  if (a.toLowerCase().startsWith('::ffff:') && isIP(a.slice(7)) === 4) a = a.slice(7);
  const kind = isIP(a);
  if (kind === 4) {
    const [x, y, z] = a.split('.');
    return `${x}.${y}.${z}.0/24`;
  }
  if (kind === 6) {
    const groups = expandIpv6(a);
    return `${groups.slice(0, 3).join(':')}::/48`;
  }
  return null;
}

function expandIpv6(a: string): string[] {
  const noZone = a.split('%')[0];
  const [head, tail] = noZone.includes('::') ? noZone.split('::') : [noZone, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === null ? [] : new Array(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => (parseInt(g, 16) || 0).toString(16));
}

/** The key the address HMAC uses, derived from MASTER_KEY (never MASTER_KEY itself). */
export const addressKey = (masterKey: Buffer): Buffer =>
  Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'shortlink audit address v1', 32));

/** Tells "the same address as before" without keeping the address. */
export function addressHmac(key: Buffer, address: string | null | undefined): string | null {
  if (!address || addressNetwork(address) === null) return null;
  return createHmac('sha256', key).update(address.trim().toLowerCase()).digest('hex');
}
