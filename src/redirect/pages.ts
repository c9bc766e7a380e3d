// The pages a visitor sees. Self-contained HTML (inline style only), locked down by headers:
// nothing loads from elsewhere, nothing frames them, and no referrer leaves with the slug.
import type { ServerResponse } from 'node:http';
import type { VisitPage } from '../domain/resolve.ts';

export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
};

export const PASSWORD_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http:; frame-ancestors 'none'; base-uri 'none'";

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f6f7f9;color:#1f2937;margin:0;
display:flex;min-height:100vh;align-items:center;justify-content:center}main{background:#fff;border-radius:12px;
box-shadow:0 1px 3px rgba(0,0,0,.1);padding:2rem 2.5rem;max-width:26rem;text-align:center}h1{font-size:1.4rem;margin:0 0 .75rem}
p{line-height:1.5;margin:.5rem 0}input{font-size:1rem;padding:.6rem;width:100%;box-sizing:border-box;border:1px solid #cbd5e1;
border-radius:8px;margin:.75rem 0}button{font-size:1rem;padding:.6rem 1.2rem;border:0;border-radius:8px;background:#2563eb;color:#fff;
cursor:pointer}.error{color:#b91c1c}`;

function layout(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${head}<style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

const TEXT: Record<Exclude<VisitPage, 'password'>, [string, string]> = {
  not_found: ['Link not found', 'There is no link at this address. Check that it was typed correctly.'],
  not_live: ['Not live yet', 'This link is not live yet. Please come back later.'],
  ended: ['Link no longer live', 'This link has ended and no longer leads anywhere.'],
  expired: ['Link expired', 'This link has expired.'],
  limit_reached: ['Link no longer available', 'This link has reached the number of visits it allows.'],
};

/** An address /@{handle} with no published page (unknown, unpublished, disabled or deleted). */
export function pageNotFound(): string {
  return layout(
    'Page not found',
    '<h1>Page not found</h1><p>There is no page at this address. Check that it was typed correctly.</p>',
  );
}

export function statusPage(page: Exclude<VisitPage, 'password'>): string {
  const [title, text] = TEXT[page];
  return layout(title, `<h1>${title}</h1><p>${text}</p>`);
}

/**
 * A form posted to an address that takes none (405): a link without a password to unlock, or a
 * bio page. It must not say "not found": the address exists, the method is what is refused.
 */
export function methodNotAllowedPage(what: 'link' | 'page'): string {
  const text =
    what === 'link'
      ? 'This link has no password to unlock, so there is nothing to submit here. Open the link to follow it.'
      : 'A page takes no form, so there is nothing to submit here. Open the page to see it.';
  return layout('Method not allowed', `<h1>Method not allowed</h1><p>${text}</p>`);
}

/** A password form over the 4 KiB the redirect path reads (413). */
export function formTooLargePage(maxBytes: number): string {
  return layout(
    'Form too large',
    `<h1>Form too large</h1><p>The form sent is larger than the ${maxBytes / 1024} KiB this page accepts.</p>`,
  );
}

/** The link or page could not be looked up (the database cannot be read): 503, worth a retry. */
export function unavailablePage(): string {
  return layout(
    'Temporarily unavailable',
    '<h1>Temporarily unavailable</h1><p>This address cannot be looked up right now. Please try again in a moment.</p>',
  );
}

export function passwordPage(opts: { action: string; csrf: string; error?: string }): string {
  return layout(
    'Password required',
    `<h1>Password required</h1><p>This link is protected. Enter its password to continue.</p>
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ''}
<form method="post" action="${escapeHtml(opts.action)}" autocomplete="off">
<input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required autofocus>
<button type="submit">Continue</button></form>`,
  );
}

export function throttledPage(retryAfterSeconds: number): string {
  return layout(
    'Too many attempts',
    `<h1>Too many attempts</h1><p>Too many wrong passwords. Try again in ${Math.ceil(retryAfterSeconds / 60)} minute(s).</p>`,
  );
}

type Tag = [name: string, value: string | null | undefined];

/**
 * The Open Graph (`og:*`) and Twitter card (`twitter:*`) meta tags of a page shared on social
 * sites; a tag without a value is left out. The Twitter card repeats the title, description and
 * image of the Open Graph tags.
 */
export function socialTags(t: {
  type: string;
  url: string;
  title: string | null | undefined;
  description: string | null | undefined;
  image: string | null | undefined;
  card: string;
}): string {
  const og: Tag[] = [
    ['og:type', t.type],
    ['og:url', t.url],
    ['og:title', t.title],
    ['og:description', t.description],
    ['og:image', t.image],
  ];
  const twitter: Tag[] = [
    ['twitter:card', t.card],
    ['twitter:title', t.title],
    ['twitter:description', t.description],
    ['twitter:image', t.image],
  ];
  const meta = (attribute: 'property' | 'name', tags: Tag[]) =>
    tags
      .filter(([, v]) => v)
      .map(([k, v]) => `<meta ${attribute}="${k}" content="${escapeHtml(v!)}">`)
      .join('');
  return meta('property', og) + meta('name', twitter);
}

/** For social preview crawlers: Open Graph and Twitter card tags of the link's preview fields. */
export function previewPage(p: {
  url: string;
  shortUrl: string;
  title: string | null;
  description: string | null;
  image: string | null;
}): string {
  const tags = socialTags({
    type: 'website',
    url: p.shortUrl,
    title: p.title,
    description: p.description,
    image: p.image,
    card: p.image ? 'summary_large_image' : 'summary',
  });
  const title = p.title ?? p.shortUrl;
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>${p.description ? `<p>${escapeHtml(p.description)}</p>` : ''}<p><a href="${escapeHtml(p.url)}">Continue</a></p>`,
    tags,
  );
}

export function sendPage(
  res: ServerResponse,
  status: number,
  html: string,
  extra: Record<string, string | number> = {},
): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'Content-Length': Buffer.byteLength(html), ...extra });
  res.end(res.req.method === 'HEAD' ? undefined : html);
}
