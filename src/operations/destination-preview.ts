// A destination's title, description and image, for the dashboard's "New link" (openapi/dashboard,
// getDestinationPreview), and the policy every fetch of a destination goes through. Only where the
// operator allows it (DESTINATION_FETCH=on): the service then fetches pages people name, so every
// hop goes through the deliveries' network rules (webhooks/ssrf.ts: no private, loopback, metadata
// or reserved address, the vetted address pinned against DNS rebinding), with a deadline, a size
// cap and a few redirects.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import { Parser } from 'htmlparser2';
import type { Config } from '../config.ts';
import { type NetworkPolicy, RefusedTarget, refusalReason, type VettedAddress, vetTarget } from '../webhooks/ssrf.ts';

export interface DestinationPreview {
  title: string | null;
  description: string | null;
  image: string | null;
}

/** The destination could not be read: a refused address, an error answer, a timeout. */
export class PreviewFailed extends Error {}

interface PreviewOptions {
  policy: NetworkPolicy;
  /** Certificates trusted besides the system's (test servers with their own). */
  extraCa?: string[];
}

/**
 * A GET of `address` under the network rules, its redirects followed: the final answer (any
 * status; the caller reads or drains it) and the address it came from.
 */
export type GuardedFetch = (
  address: string,
  deadline: number,
  accept: string,
) => Promise<{ res: http.IncomingMessage; url: URL }>;

/**
 * Whether this process fetches destinations, and the one guarded fetch it does it with. Built
 * once per process with its Services (src/start/server.ts), so the preview and the site icons
 * cannot follow different rules.
 */
export interface DestinationFetchPolicy {
  /** DESTINATION_FETCH: off, nothing is fetched and the dashboard answers 503 destination_fetch_off. */
  enabled: boolean;
  fetch: GuardedFetch;
}

/**
 * The policy of `config`: the deliveries' network rules (WEBHOOK_ALLOW_PRIVATE_NETWORKS opens
 * private ones) and the certificates they trust besides the system's (WEBHOOK_CA_FILE, tests).
 */
export function destinationFetchPolicy(
  config: Pick<Config, 'destinationFetch' | 'webhookAllowPrivateNetworks'>,
  extraCa: string[] | undefined,
): DestinationFetchPolicy {
  const options: PreviewOptions = { policy: { allowPrivateNetworks: config.webhookAllowPrivateNetworks }, extraCa };
  return {
    enabled: config.destinationFetch,
    fetch: (address, deadline, accept) => fetchGuarded(address, options, deadline, accept),
  };
}

const MAX_REDIRECTS = 3;
/** The head of a page holds what is read; more than this is not read. */
const MAX_BYTES = 512 * 1024;
const TEXT_LIMITS = { title: 200, description: 300 };

export async function destinationPreview(
  address: string,
  guarded: GuardedFetch,
  timeoutMs = 5000,
): Promise<DestinationPreview> {
  const deadline = Date.now() + timeoutMs;
  const { res, url } = await guarded(address, deadline, 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1');
  if (res.statusCode !== 200) {
    res.resume();
    throw new PreviewFailed(`the page answered ${res.statusCode}`);
  }
  if (!/^text\/html|^application\/xhtml\+xml/i.test(String(res.headers['content-type'] ?? ''))) {
    res.resume();
    return { title: null, description: null, image: null };
  }
  const head = await readHead(res, url, deadline);
  return { title: head.title, description: head.description, image: head.image };
}

/** The GuardedFetch of a policy: every hop vetted against `o.policy`. */
async function fetchGuarded(
  address: string,
  o: PreviewOptions,
  deadline: number,
  accept: string,
): Promise<{ res: http.IncomingMessage; url: URL }> {
  let url = new URL(address);
  for (let hop = 0; ; hop++) {
    let target: VettedAddress;
    try {
      // The name's lookup counts against the same deadline as the rest.
      target = await beforeDeadline(vetTarget(url, o.policy, undefined, true), deadline, `resolving ${url.hostname}`);
    } catch (err) {
      if (err instanceof RefusedTarget || err instanceof PreviewFailed)
        throw new PreviewFailed(`${url.host}: ${err.message}`);
      throw new PreviewFailed(`${url.host} could not be resolved`);
    }
    const res = await get(url, target, deadline, o, accept);
    const location = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.resume();
      if (hop >= MAX_REDIRECTS) throw new PreviewFailed(`more than ${MAX_REDIRECTS} redirects`);
      url = new URL(location, url);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PreviewFailed('a redirect left http(s)');
      continue;
    }
    return { res, url };
  }
}

function beforeDeadline<T>(work: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new PreviewFailed(`${what} took too long`)), Math.max(1, deadline - Date.now()));
    }),
  ]).finally(() => clearTimeout(timer));
}

function get(url: URL, target: VettedAddress, deadline: number, o: PreviewOptions, accept: string) {
  // The name is never looked up again: the socket goes to the address that was vetted.
  const lookup: LookupFunction = (_name, options, cb) =>
    options?.all
      ? (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [target])
      : cb(null, target.address, target.family);
  const secure = url.protocol === 'https:';
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = (secure ? https : http).request(url, {
      method: 'GET',
      lookup,
      agent: false,
      ...(secure && o.extraCa ? { ca: [...tls.rootCertificates, ...o.extraCa] } : {}),
      headers: {
        accept,
        'user-agent': 'Shortlink link preview (+https://github.com/shortlink)',
      },
      timeout: Math.max(1, deadline - Date.now()),
    });
    req.on('socket', (socket) =>
      socket.once('connect', () => {
        // Belt and braces: the peer is the vetted address, which the rules accept.
        const reason = refusalReason(socket.remoteAddress ?? '', o.policy);
        if (reason) req.destroy(new PreviewFailed(`refused: ${reason}`));
      }),
    );
    req.on('timeout', () => req.destroy(new PreviewFailed('the page did not answer in time')));
    req.on('response', resolve);
    req.on('error', (err) =>
      reject(err instanceof PreviewFailed ? err : new PreviewFailed(`${url.host}: ${err.message}`)),
    );
    req.end();
  });
}

/** What a page's head says: the preview's fields and its icon (favicons.ts). */
export interface PageHead extends DestinationPreview {
  icon: string | null;
}

/** Reads the page until its head is over (or MAX_BYTES), keeping the first of each field. */
export function readHead(res: http.IncomingMessage, base: URL, deadline: number): Promise<PageHead> {
  return new Promise((resolve, reject) => {
    const found: {
      title?: string;
      ogTitle?: string;
      description?: string;
      ogDescription?: string;
      image?: string;
      icon?: string;
    } = {};
    let inTitle = false;
    let titleText = '';
    let read = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      res.destroy();
      const title = clean(found.ogTitle ?? found.title, TEXT_LIMITS.title);
      const description = clean(found.ogDescription ?? found.description, TEXT_LIMITS.description);
      resolve({ title, description, image: imageUrl(found.image, base), icon: imageUrl(found.icon, base) });
    };
    const parser = new Parser(
      {
        onopentag(name, attrs) {
          if (name === 'title' && found.title === undefined) inTitle = true;
          else if (name === 'meta') {
            const key = (attrs.property ?? attrs.name ?? '').toLowerCase();
            const content = attrs.content;
            if (content === undefined) return;
            if (key === 'og:title') found.ogTitle ??= content;
            else if (key === 'og:description') found.ogDescription ??= content;
            else if (key === 'description') found.description ??= content;
            else if (key === 'og:image' || key === 'og:image:url' || key === 'twitter:image') found.image ??= content;
          } else if (name === 'link' && found.icon === undefined && attrs.href) {
            // rel="icon" or "shortcut icon"; not "apple-touch-icon" (large, for home screens).
            if ((attrs.rel ?? '').toLowerCase().split(/\s+/).includes('icon')) found.icon = attrs.href;
          } else if (name === 'body') finish();
        },
        ontext(text) {
          if (inTitle) titleText += text;
        },
        onclosetag(name) {
          if (name === 'title' && inTitle) {
            inTitle = false;
            found.title = titleText;
          } else if (name === 'head') finish();
        },
      },
      { decodeEntities: true },
    );
    const timer = setTimeout(finish, Math.max(1, deadline - Date.now()));
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (done) return;
      read += Buffer.byteLength(chunk);
      parser.write(chunk);
      if (read >= MAX_BYTES) finish();
    });
    res.on('end', () => {
      parser.end();
      finish();
    });
    res.on('error', (err) => {
      if (!done) reject(new PreviewFailed(err.message));
    });
  });
}

function clean(text: string | undefined, max: number): string | null {
  const t = text?.replace(/\s+/g, ' ').trim();
  if (!t) return null;
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** An image as an absolute http(s) URL, or null (a data: URL or a script scheme is no image to show). */
function imageUrl(src: string | undefined, base: URL): string | null {
  if (!src?.trim()) return null;
  try {
    const u = new URL(src.trim(), base);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.href.length <= 2048 ? u.href : null;
  } catch {
    return null;
  }
}
