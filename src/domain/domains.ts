// Custom domains: which hosts a workspace may add, and what proves it controls one.
import { quoted } from './errors.ts';

const HOST = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;
/** A Host header's name without its port. */
export const hostnameOf = (host: string) => host.toLowerCase().replace(/:\d+$/, '');

/**
 * Why a host cannot be added, or null. Requests are matched on the Host header's name without
 * its port, so a port could never match; the service's own hosts are not a workspace's.
 */
export function hostProblem(host: string, ownHosts: string[]): string | null {
  if (!HOST.test(host)) return 'must be a host name without scheme, port or path, such as go.example.com';
  if (ownHosts.map(hostnameOf).includes(host.toLowerCase()))
    return `${quoted(host)} is this service's own short domain or public host`;
  return null;
}

/** The DNS TXT record that proves control of a host: its name and the value it must hold. */
export function verificationRecord(host: string, proof: string): { txtName: string; txtValue: string } {
  return { txtName: `_shortlink-verify.${host}`, txtValue: `shortlink-verify=${proof}` };
}

/**
 * How long a claim on a host may wait for its verification. Claims do not block each other, and
 * the first workspace to verify owns the host; a claim left unverified this long lapses
 * (EXPIRED): it can no longer be verified, and adding the host again starts a new claim.
 */
export const CLAIM_TTL_MS = 7 * 24 * 3_600_000;

/** When an unverified claim lapses; null once the domain was verified (it holds its host). */
export function claimExpiresAt(domain: { verified_at: unknown; created_at?: unknown }): number | null {
  const verified = domain.verified_at !== null && domain.verified_at !== undefined;
  return verified ? null : Number(domain.created_at ?? 0) + CLAIM_TTL_MS;
}

export function claimExpired(domain: { verified_at: unknown; created_at?: unknown }, now: number): boolean {
  const at = claimExpiresAt(domain);
  return at !== null && at <= now;
}
