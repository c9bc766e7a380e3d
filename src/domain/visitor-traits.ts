// What routing conditions read of a visitor's headers: device, OS and browser from the
// User-Agent (ua-parser-js, reduced to the values the contract names), and the most preferred
// language of Accept-Language. Cached per header string: the same few make up most traffic.
import { UAParser } from 'ua-parser-js';
import { BoundedCache } from './bounded-cache.ts';
import { formDecode, pairNamed } from './forwarding.ts';

export interface AgentTraits {
  device: 'mobile' | 'tablet' | 'desktop' | null;
  os: 'ios' | 'android' | 'windows' | 'macos' | 'linux' | 'chromeos' | null;
  browser: 'chrome' | 'safari' | 'firefox' | 'edge' | 'opera' | 'samsung' | null;
}

const NO_AGENT: AgentTraits = { device: null, os: null, browser: null };

const OS: Record<string, AgentTraits['os']> = {
  ios: 'ios',
  ipados: 'ios',
  android: 'android',
  windows: 'windows',
  macos: 'macos',
  'mac os': 'macos',
  'chrome os': 'chromeos',
  'chromium os': 'chromeos',
};
/** ua-parser-js names many Linux distributions; each is `linux`. */
const LINUXES =
  /^(linux|ubuntu|debian|fedora|arch|mint|gentoo|centos|red hat|suse|opensuse|manjaro|slackware|kubuntu|xubuntu|elementary os|deepin|zenwalk|mandriva|pclinuxos)/;

function browserOf(name: string): AgentTraits['browser'] {
  const n = name.toLowerCase();
  if (n.startsWith('samsung')) return 'samsung';
  if (n.includes('edge')) return 'edge';
  if (n.includes('opera')) return 'opera';
  if (n.includes('firefox')) return 'firefox';
  if (n.includes('chrome')) return 'chrome';
  if (n.includes('safari')) return 'safari';
  return null;
}

const agentCache = new BoundedCache<AgentTraits>(5_000);

export function agentTraits(userAgent: string | undefined): AgentTraits {
  if (!userAgent) return NO_AGENT;
  return agentCache.get(userAgent, (ua) => {
    const r = UAParser(ua);
    const type = r.device.type;
    const os = (r.os.name ?? '').toLowerCase();
    return {
      // Phones and watches are mobile; anything neither a phone nor a tablet is a desktop.
      device: type === 'mobile' || type === 'wearable' ? 'mobile' : type === 'tablet' ? 'tablet' : 'desktop',
      os: OS[os] ?? (LINUXES.test(os) ? 'linux' : null),
      browser: browserOf(r.browser.name ?? ''),
    };
  });
}

const languageCache = new BoundedCache<string | null>(2_000);

/**
 * The primary subtag (lower case) of the most preferred language in an Accept-Language value:
 * the entry with the highest q-value above 0, the first of equals; `*` names no language.
 */
export function preferredLanguage(acceptLanguage: string | undefined): string | null {
  if (!acceptLanguage) return null;
  return languageCache.get(acceptLanguage, (header) => {
    let best: string | null = null;
    let bestQ = 0;
    for (const entry of header.split(',')) {
      const [tag, ...params] = entry.trim().split(';');
      const primary = tag.trim().split('-')[0].toLowerCase();
      if (!/^[a-z]{1,8}$/.test(primary)) continue;
      let q = 1;
      for (const p of params) {
        const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
        if (m) q = Number(m[1]);
      }
      if (!(q > 0) || q > 1) continue;
      if (q > bestQ) {
        best = primary;
        bestQ = q;
      }
    }
    return best;
  });
}

/**
 * A query string's parameters, names and values decoded (`+` as a space), in order: as
 * URLSearchParams reads them, by hand because it runs per routed visit, where URLSearchParams
 * cost more than the rest of the rules (bench/README.md, routed scenario).
 */
export function queryParams(raw: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!raw) return out;
  for (let from = 0; from < raw.length; ) {
    let amp = raw.indexOf('&', from);
    if (amp === -1) amp = raw.length;
    if (amp > from) {
      let eq = raw.indexOf('=', from);
      if (eq === -1 || eq > amp) eq = amp;
      const name = formDecode(raw.slice(from, eq));
      const value = eq === amp ? '' : formDecode(raw.slice(eq + 1, amp));
      const list = out.get(name);
      if (list) list.push(value);
      else out.set(name, [value]);
    }
    from = amp + 1;
  }
  return out;
}

/**
 * Whether a query string has a parameter `name` (with `value`, when given), both decoded as
 * queryParams decodes them. The query rule's test on the redirect: it reads the text in place,
 * where building queryParams' map made a string, an array and an entry per parameter per visit.
 */
export function queryHas(raw: string | null, name: string, value: string | undefined): boolean {
  if (!raw) return false;
  for (let from = 0; from < raw.length; ) {
    let amp = raw.indexOf('&', from);
    if (amp === -1) amp = raw.length;
    if (amp > from && pairNamed(raw, from, amp, name)) {
      if (value === undefined) return true;
      const eq = raw.indexOf('=', from);
      if (formDecode(eq === -1 || eq > amp ? '' : raw.slice(eq + 1, amp)) === value) return true;
    }
    from = amp + 1;
  }
  return false;
}
