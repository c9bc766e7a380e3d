// Where deliveries may go (asyncapi/*.yaml, "Network rules"): https only,
// and never to private, loopback, link-local, unique-local, CGNAT, multicast, unspecified,
// reserved or cloud metadata addresses. The check is made on the address actually connected to:
// the worker resolves the name here, keeps only acceptable addresses, and connects to the one it
// vetted (delivery.ts pins it through the socket's `lookup`), so a name that changes its answer
// between the check and the connection (DNS rebinding) cannot lead anywhere else.
// The ranges are classified by ipaddr.js; the few it does not name are listed below.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export type AddressFamily = 4 | 6;
export interface VettedAddress {
  address: string;
  family: AddressFamily;
}

export interface NetworkPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS=1 (tests only): loopback and private ranges become reachable. */
  allowPrivateNetworks: boolean;
}

/** A target the worker will not contact; nothing is sent. */
export class RefusedTarget extends Error {}

// Cloud metadata and similar host-local services: refused even when private networks are allowed.
const METADATA: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [
  '169.254.169.254/32', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle (IMDS)
  '169.254.170.2/32', // AWS ECS task metadata
  '169.254.169.123/32', // AWS time sync
  '100.100.100.200/32', // Alibaba Cloud
  '168.63.129.16/32', // Azure host services (a public address)
  '192.0.0.192/32', // Oracle Cloud
  'fd00:ec2::254/128', // AWS IMDS over IPv6
  'fd00:ec2::123/128',
].map((cidr) => ipaddr.parseCIDR(cidr));

// Special-purpose ranges ipaddr.js 1.x reports as plain unicast.
const ALSO_RESERVED: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [
  '198.18.0.0/15', // benchmarking (RFC 2544)
  '::/96', // IPv4-compatible IPv6 (deprecated): ::127.0.0.1 would reach loopback
  '100::/64', // discard-only (RFC 6666)
  'fec0::/10', // site-local (deprecated, private in practice)
  '2001:10::/28', // ORCHID
  '2001:20::/28', // ORCHIDv2
].map((cidr) => ipaddr.parseCIDR(cidr));

// Ranges that WEBHOOK_ALLOW_PRIVATE_NETWORKS=1 opens (for receivers on the test machine).
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'linkLocal', 'carrierGradeNat']);

const DESCRIBE: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private (RFC 1918) address',
  uniqueLocal: 'a unique-local address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  unspecified: 'the unspecified address',
  reserved: 'a reserved address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  ipv4Mapped: 'an IPv4-mapped address',
};

const inAny = (ip: ipaddr.IPv4 | ipaddr.IPv6, list: [ipaddr.IPv4 | ipaddr.IPv6, number][]) =>
  list.some(([range, bits]) => range.kind() === ip.kind() && (ip as ipaddr.IPv4).match(range as ipaddr.IPv4, bits));

/** Why `address` may not be contacted, or null when it may. IPv4-mapped IPv6 is judged as IPv4. */
export function refusalReason(address: string, policy: NetworkPolicy): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns ::ffff:a.b.c.d into a.b.c.d, so a mapped address cannot hide a private one.
    ip = ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return `${address} is not an IP address`;
  }
  if (inAny(ip, METADATA)) return `${address} is a cloud metadata address`;
  const range = ip.range();
  if (range === 'unicast') return inAny(ip, ALSO_RESERVED) ? `${address} is a reserved address` : null;
  if (policy.allowPrivateNetworks && PRIVATE_RANGES.has(range)) return null;
  return `${address} is ${DESCRIBE[range] ?? `a ${range} address`}`;
}

export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/**
 * The address to connect to for `url`: the URL must be https (or http with `allowHttp`: a link's
 * destination, operations/destination-preview.ts), and the host (a literal, or every
 * address its name resolves to, filtered) must be acceptable. Throws RefusedTarget when no
 * acceptable address remains; DNS failures are thrown as they come (nothing was sent either way).
 */
export async function vetTarget(
  url: URL,
  policy: NetworkPolicy,
  lookup: Lookup = systemLookup,
  allowHttp = false,
): Promise<VettedAddress> {
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:'))
    throw new RefusedTarget(`${url.protocol.replace(/:$/, '')} URLs are refused: deliveries go to https only`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    const reason = refusalReason(host, policy);
    if (reason) throw new RefusedTarget(`refused: ${reason}`);
    return { address: host, family: net.isIP(host) as AddressFamily };
  }
  const answers = await lookup(host);
  const refusals: string[] = [];
  for (const a of answers) {
    const reason = refusalReason(a.address, policy);
    if (!reason) return { address: a.address, family: (a.family === 6 ? 6 : 4) as AddressFamily };
    refusals.push(reason);
  }
  if (!answers.length) throw new Error(`${host} has no address`);
  throw new RefusedTarget(
    `refused: ${host} resolves only to addresses deliveries may not reach (${refusals.join('; ')})`,
  );
}
