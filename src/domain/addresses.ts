// Client addresses as routing's `ip` conditions compare them: IPv4 (and IPv4-mapped IPv6, which
// is how Node reports an IPv4 client on a dual-stack socket) as a 32-bit number, compared to a
// range with a mask; IPv6 through ipaddr.js. The IPv4 reading is by hand because it runs per
// visit on the redirect path for links with such rules, where ipaddr.js's parser cost a large
// share of the visit (bench/README.md, routed scenario).
import ipaddr from 'ipaddr.js';

export type Address = { text: string; v4: number; v6?: undefined } | { text: string; v4?: undefined; v6: ipaddr.IPv6 };
export type Range = { v4: number; mask: number; v6?: undefined } | { v4?: undefined; v6: ipaddr.IPv6; bits: number };

/** A dotted-quad IPv4 address as a number; -1 when it is not one. */
function dotted(s: string, from: number): number {
  let value = 0;
  let part = -1;
  let parts = 0;
  for (let i = from; i <= s.length; i++) {
    const c = i === s.length ? 46 : s.charCodeAt(i);
    if (c === 46 /* . */) {
      if (part < 0 || ++parts > 4) return -1;
      value = value * 256 + part;
      part = -1;
    } else if (c >= 48 && c <= 57) {
      // No leading zeros (an octal reading in some parsers), no value above 255.
      if (part === 0) return -1;
      part = part < 0 ? c - 48 : part * 10 + c - 48;
      if (part > 255) return -1;
    } else return -1;
  }
  return parts === 4 ? value : -1;
}

/** An address as routing compares it; null when the text is not an IPv4 or IPv6 address. */
export function parseAddress(text: string | undefined): Address | null {
  if (!text) return null;
  const mapped = text.length > 7 && text.charCodeAt(0) === 58 && /^::ffff:/i.test(text) ? 7 : 0;
  const v4 = dotted(text, mapped);
  if (v4 >= 0) return { text: mapped ? text.slice(mapped) : text, v4 };
  if (!ipaddr.IPv6.isValid(text)) return null;
  const v6 = ipaddr.IPv6.parse(text);
  if (v6.isIPv4MappedAddress()) {
    const t = v6.toIPv4Address().toString();
    return { text: t, v4: dotted(t, 0) };
  }
  return { text: v6.toString(), v6 };
}

/** An address or CIDR range (IPv4-mapped IPv6 read as IPv4); null when neither. */
export function parseRange(value: string): Range | null {
  const slash = value.indexOf('/');
  const addr = parseAddress(slash === -1 ? value : value.slice(0, slash));
  if (!addr) return null;
  const bitsText = slash === -1 ? null : value.slice(slash + 1);
  if (bitsText !== null && !/^\d{1,3}$/.test(bitsText)) return null;
  const mappedV6 = addr.v4 !== undefined && /:/.test(value.slice(0, slash === -1 ? undefined : slash));
  let bits = bitsText === null ? (addr.v4 !== undefined ? 32 : 128) : Number(bitsText);
  if (mappedV6 && bitsText !== null) bits -= 96;
  if (addr.v4 !== undefined) {
    if (bits < 0 || bits > 32) return null;
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return { v4: (addr.v4 & mask) >>> 0, mask };
  }
  if (bits > 128) return null;
  return { v6: addr.v6, bits };
}

export function inRange(a: Address, r: Range): boolean {
  if (r.v4 !== undefined) return a.v4 !== undefined && (a.v4 & r.mask) >>> 0 === r.v4;
  return a.v6?.match(r.v6, r.bits) ?? false;
}
