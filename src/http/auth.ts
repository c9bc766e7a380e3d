// Bearer API keys (openapi/openapi.yaml, Authentication), in the order a client would expect
// the answers: who are you (401), too fast (429), may your plan and key do this (403).
import type { Request } from 'express';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Db } from '../db/knex.ts';
import { API_KEY_FORMAT, isPaidPlan, planHasApi, type Plan } from '../domain/access.ts';
import { findKey } from '../db/repos/api-keys.ts';
import { forbidden, unauthenticated } from '../domain/errors.ts';
import type { KeyUses } from './key-uses.ts';
import { consumeRequest } from './rate-limit.ts';

export interface AuthContext {
  keyId: string;
  workspaceId: string;
  userId: string;
  plan: Plan;
  scopes: Set<string>;
}

export async function authenticate(
  req: Request,
  knex: Db,
  limiter: RateLimiterAbstract,
  requiredScopes: string[],
  uses?: KeyUses,
): Promise<AuthContext> {
  const header = req.headers.authorization;
  if (!header) throw unauthenticated('Missing Authorization header; send Authorization: Bearer <API key>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthenticated('Authorization header must be Bearer <API key>');
  const key = match[1];
  if (!API_KEY_FORMAT.test(key))
    throw unauthenticated('Malformed API key: expected mk_ followed by 64 hexadecimal characters');
  const record = await findKey(knex, key);
  if (!record) throw unauthenticated('Unknown API key');
  if (record.revokedAt !== null) throw unauthenticated('This API key has been revoked');
  if (record.expiresAt !== null && record.expiresAt <= Date.now()) throw unauthenticated('This API key has expired');
  if (!isPaidPlan(record.plan))
    throw unauthenticated('This workspace is not on a paid plan; its API keys are not accepted');
  await consumeRequest(limiter, record.id);
  // A live key opened the API, whatever its plan and scopes then allow: that is a use.
  uses?.note(record.id);
  if (!planHasApi(record.plan)) {
    throw forbidden(`The ${record.plan} plan does not include the API; it needs the Growth plan or above`);
  }
  const missing = requiredScopes.filter((s) => !record.scopes.has(s));
  if (missing.length) throw forbidden(`This API key lacks the scope ${missing.join(', ')}`);
  return {
    keyId: record.id,
    workspaceId: record.workspaceId,
    userId: record.userId,
    plan: record.plan,
    scopes: record.scopes,
  };
}
