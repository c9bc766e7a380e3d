// Plans, roles and scopes (openapi/openapi.yaml: Authentication, Plans).
import { createHash } from 'node:crypto';
import { randomHex } from './ids.ts';

export const PLANS = ['free', 'pro', 'growth', 'business'] as const;
export type Plan = (typeof PLANS)[number];
export const ROLES = ['OWNER', 'ADMIN', 'MEMBER', 'ANALYST'] as const;
export type Role = (typeof ROLES)[number];
export const SCOPES = [
  'links:read',
  'links:write',
  'conversions:read',
  'conversions:write',
  'analytics:read',
  'pages:read',
  'pages:write',
  'webhooks:read',
  'webhooks:write',
  'team:read',
] as const;
export type Scope = (typeof SCOPES)[number];

/** free is unpaid: its keys are refused with 401 (even keys minted while it was paid). */
export const isPaidPlan = (plan: Plan) => plan !== 'free';
/** The API, expiredUrl, webhooks, conversions and goals need Growth or above. */
export const planHasApi = (plan: Plan) => plan === 'growth' || plan === 'business';

export const canUpdateLinks = (role: Role | null) => role !== null && role !== 'ANALYST';
export const canDeleteLinks = (role: Role | null) => role === 'OWNER' || role === 'ADMIN';

const ADMINS: readonly Role[] = ['OWNER', 'ADMIN'];
const MAKERS: readonly Role[] = ['OWNER', 'ADMIN', 'MEMBER'];
/**
 * Which roles may hold each scope on a key. A key acts as its person, so it may do only what that
 * role may do in the dashboard (the x-roles of openapi/dashboard/paths/): OWNER and ADMIN
 * everything; MEMBER links, pages, conversions and reads, not webhooks; ANALYST makes no keys.
 * Key creation (dashboard and command line), the key form and the API's role checks read it.
 */
export const SCOPE_ROLES: Readonly<Record<Scope, readonly Role[]>> = {
  'links:read': MAKERS,
  'links:write': MAKERS,
  'conversions:read': MAKERS,
  'conversions:write': MAKERS,
  'analytics:read': MAKERS,
  'pages:read': MAKERS,
  'pages:write': MAKERS,
  'webhooks:read': MAKERS,
  'webhooks:write': ADMINS,
  'team:read': MAKERS,
};

/** Whether a person of this role (null: no longer a member) may hold, and use, the scope. */
export const mayHoldScope = (role: Role | null, scope: Scope) => role !== null && SCOPE_ROLES[scope].includes(role);
/** The scopes a person of this role may put on a key, in SCOPES order. */
export const scopesOfRole = (role: Role | null): Scope[] => SCOPES.filter((s) => mayHoldScope(role, s));
/** The roles that may hold the scope, for messages ("OWNER or ADMIN"). */
export const rolesHolding = (scope: Scope): string => {
  const roles = SCOPE_ROLES[scope];
  return roles.length === 1 ? roles[0] : `${roles.slice(0, -1).join(', ')} or ${roles[roles.length - 1]}`;
};

export const API_KEY_FORMAT = /^mk_[0-9a-f]{64}$/;
export function generateApiKey(): string {
  return `mk_${randomHex(32)}`;
}
/** Keys carry 256 random bits, so one fast hash is enough to store them safely and look them up. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
