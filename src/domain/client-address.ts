// Which address a request came from, when proxies stand in front of the service.

/**
 * The client's address as the nearest untrusted hop saw it. Each proxy appends the address it
 * received the request from to X-Forwarded-For, so only the right-most `trustedHops` entries
 * were written by proxies we trust; everything to their left was written by the client and can
 * say anything. With one trusted proxy (TRUST_PROXY=1) that is the right-most entry; with none,
 * the socket's peer. Express's `trust proxy` set to the same number picks the same address for
 * `req.ip`.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedHops: number,
): string {
  const socket = peer ?? 'unknown';
  if (trustedHops <= 0 || forwardedFor === undefined) return socket;
  // One trusted proxy, one header: its last entry, without building the chain. Every click
  // computes this on the redirect path (bench/geo.ts).
  if (trustedHops === 1 && typeof forwardedFor === 'string') {
    const last = forwardedFor.slice(forwardedFor.lastIndexOf(',') + 1).trim();
    if (last) return last;
  }
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // The chain as the service sees it: the client's claims, each proxy's entry, the socket's peer.
  const chain = [...entries, socket];
  return chain[Math.max(0, chain.length - 1 - trustedHops)];
}
