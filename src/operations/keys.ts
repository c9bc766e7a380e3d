// API keys made and revoked by people in the dashboard: a MEMBER manages their own keys, the
// other roles every key of the workspace. (`shortlink key` makes them for the operator.)
import type { Db } from '../db/knex.ts';
import * as apiKeys from '../db/repos/api-keys.ts';
import { planHasApi, SCOPES, type Plan, type Role, type Scope } from '../domain/access.ts';
import { forbidden, invalid, notFound, quoted } from '../domain/errors.ts';

/** Who acts in the dashboard: their workspace (with its plan and their role) and themselves. */
export interface Member {
  workspace: { id: string; plan: Plan; role: Role };
  userId: string;
}

/** The keys the person sees: a MEMBER their own, the others every key of the workspace. */
export const keysOf = (knex: Db, who: Member) =>
  apiKeys.keysOf(knex, who.workspace.id, who.workspace.role === 'MEMBER' ? who.userId : undefined);

/** The most a key's name holds (openapi/dashboard/schemas/ApiKeyCreate.yaml). */
export const KEY_NAME_MAX = 100;

/**
 * A key's name as stored: trimmed, null when blank or absent (a name is optional), refused past
 * KEY_NAME_MAX characters. The dashboard's contract and the command line both come here.
 */
export function keyName(raw: string | null | undefined, field = 'name'): string | null {
  const name = raw?.trim() ?? '';
  if (!name) return null;
  if ([...name].length > KEY_NAME_MAX) throw invalid(`${field} must be at most ${KEY_NAME_MAX} characters`, field);
  return name;
}

/** Makes a key for the person; the key itself is in the answer, once. */
export async function createKey(
  knex: Db,
  who: Member,
  body: { scopes: string[]; expiresAt?: string | null; name?: string },
) {
  const w = who.workspace;
  if (!planHasApi(w.plan))
    throw forbidden(`The ${w.plan} plan does not include the API; API keys need the Growth plan or above`);
  const unknown = body.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw invalid(`unknown scopes: ${unknown.map(quoted).join(', ')}`, 'scopes');
  let expiresAt: number | null = null;
  if (body.expiresAt) {
    expiresAt = Date.parse(body.expiresAt);
    if (!Number.isFinite(expiresAt)) throw invalid('expiresAt must be an ISO 8601 date-time', 'expiresAt');
    if (expiresAt <= Date.now()) throw invalid('expiresAt must be in the future', 'expiresAt');
  }
  const name = keyName(body.name);
  // The repository refuses scopes the person's role may not hold.
  const { id, key } = await apiKeys.createKey(
    knex,
    w.id,
    who.userId,
    [...new Set(body.scopes)] as Scope[],
    expiresAt,
    name,
  );
  const row = (await apiKeys.keysOf(knex, w.id, who.userId)).find((k) => k.id === id)!;
  return { row, key };
}

export async function revokeKey(knex: Db, who: Member, keyId: string): Promise<void> {
  const key = await apiKeys.findKeyOf(knex, who.workspace.id, keyId);
  // A MEMBER's view holds only their own keys: another's answers as one that does not exist.
  if (!key || (who.workspace.role === 'MEMBER' && key.user_id !== who.userId)) throw notFound('API key not found');
  await apiKeys.revokeKey(knex, key.id);
}
