// Plans, roles and scopes (openapi/openapi.yaml: Authentication, Plans).
import { createHash } from 'node:crypto';
import { randomHex } from './ids.ts';

export const PLANS = ['free', 'pro', 'growth', 'business'] as const;
export type Plan = (typeof PLANS)[number];
export const ROLES = ['OWNER', 'ADMIN', 'MEMBER', 'ANALYST'] as const;
export type Role = (typeof ROLES)[number];
export const SCOPES = [
  'links:read', 'links:write', 'conversions:read', 'conversions:write', 'analytics:read',
  'pages:read', 'pages:write', 'webhooks:read', 'webhooks:write', 'team:read',
] as const;
export type Scope = (typeof SCOPES)[number];

/** free is unpaid: its keys are refused with 401 (even keys minted while it was paid). */
export const isPaidPlan = (plan: Plan) => plan !== 'free';
/** The API, expiredUrl, webhooks, conversions and goals need Growth or above. */
export const planHasApi = (plan: Plan) => plan === 'growth' || plan === 'business';

export const canUpdateLinks = (role: Role | null) => role !== null && role !== 'ANALYST';
export const canDeleteLinks = (role: Role | null) => role === 'OWNER' || role === 'ADMIN';

export const API_KEY_FORMAT = /^mk_[0-9a-f]{64}$/;
export function generateApiKey(): string {
  return `mk_${randomHex(32)}`;
}
/** Keys carry 256 random bits, so one fast hash is enough to store them safely and look them up. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
