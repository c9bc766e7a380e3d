// A bio page as visitors get it: plain HTML and CSS, no script, the visitor pages' security
// headers, and the Open Graph and Twitter card tags crawlers read. The same function renders the
// dashboard's live preview (dashboard handlers, `preview`), so the preview is the page.
//
// Each theme's stylesheet is a fixed string: the page carries it inline, and the dashboard's
// Content-Security-Policy allows exactly these stylesheets by their hashes (BIO_PAGE_STYLE_HASHES)
// so that the preview, shown in a sandboxed srcdoc frame that inherits that policy, is styled
// without allowing inline styles in general. No `style` attribute is ever written.
import { createHash } from 'node:crypto';
import type { PageBlock, PageContent, PageTheme } from '../domain/bio-pages.ts';
import { escapeHtml, socialTags } from './pages.ts';

interface Palette {
  background: string;
  text: string;
  muted: string;
  button: string;
  buttonText: string;
  buttonBorder: string;
  focus: string;
}

/** Colours chosen for contrast of at least 4.5:1 for every text against what it sits on. */
const PALETTES: Record<PageTheme, Palette> = {
  classic: {
    background: '#f8fafc',
    text: '#0f172a',
    muted: '#475569',
    button: '#1d4ed8',
    buttonText: '#ffffff',
    buttonBorder: '#1e40af',
    focus: '#f59e0b',
  },
  midnight: {
    background: '#0f172a',
    text: '#f8fafc',
    muted: '#cbd5e1',
    button: '#e2e8f0',
    buttonText: '#0f172a',
    buttonBorder: '#f8fafc',
    focus: '#facc15',
  },
  forest: {
    background: '#ecfdf5',
    text: '#064e3b',
    muted: '#065f46',
    button: '#047857',
    buttonText: '#ffffff',
    buttonBorder: '#065f46',
    focus: '#b45309',
  },
  sunrise: {
    background: '#fff7ed',
    text: '#431407',
    muted: '#7c2d12',
    button: '#c2410c',
    buttonText: '#ffffff',
    buttonBorder: '#9a3412',
    focus: '#1d4ed8',
  },
};

function stylesheet(p: Palette): string {
  return (
    `*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}` +
    `body{margin:0;min-height:100vh;background:${p.background};color:${p.text};` +
    `font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5}` +
    `main{max-width:36rem;margin:0 auto;padding:3rem 1.25rem 2rem;text-align:center}` +
    `.avatar{width:96px;height:96px;border-radius:50%;object-fit:cover;display:block;margin:0 auto 1rem}` +
    `h1{font-size:1.6rem;line-height:1.25;margin:0 0 .5rem;overflow-wrap:anywhere}` +
    `.bio{color:${p.muted};margin:0 0 2rem;overflow-wrap:anywhere;white-space:pre-line}` +
    `.blocks{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.875rem}` +
    `.blocks h2{font-size:1.15rem;margin:1rem 0 0;overflow-wrap:anywhere}` +
    `.blocks p{margin:0;color:${p.muted};overflow-wrap:anywhere;white-space:pre-line}` +
    `.blocks a{display:block;padding:.9rem 1.25rem;border-radius:12px;background:${p.button};color:${p.buttonText};` +
    `border:2px solid ${p.buttonBorder};font-weight:600;text-decoration:none;overflow-wrap:anywhere}` +
    `.blocks a:hover{text-decoration:underline}` +
    `.blocks a:focus-visible{outline:3px solid ${p.focus};outline-offset:3px}` +
    `footer{margin-top:3rem;font-size:.8rem;color:${p.muted}}`
  );
}

const STYLES = Object.fromEntries(Object.entries(PALETTES).map(([theme, p]) => [theme, stylesheet(p)])) as Record<
  PageTheme,
  string
>;

/** `'sha256-…'` of every theme's stylesheet, for a Content-Security-Policy's style-src. */
export const BIO_PAGE_STYLE_HASHES = Object.values(STYLES).map(
  (css) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`,
);

/** The visitor pages' headers (src/redirect/pages.ts), with a policy that allows the theme's stylesheet only. */
export function bioPageHeaders(theme: PageTheme): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; style-src ${BIO_PAGE_STYLE_HASHES[Object.keys(STYLES).indexOf(theme)]}; img-src 'self' https:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  };
}

export interface RenderOptions {
  /** The host the page is served under, for its canonical address and og:url. */
  host: string;
  handle: string;
  /** The dashboard's preview: links lead nowhere (a click there must not count). */
  preview?: boolean;
}

function block(b: PageBlock | { type: 'link'; id: string; text: string }, o: RenderOptions): string {
  const t = escapeHtml(b.text);
  if (b.type === 'heading') return `<li><h2>${t}</h2></li>`;
  if (b.type === 'paragraph') return `<li><p>${t}</p></li>`;
  // A link block goes through the page's own address, which counts the click as the short
  // link's, with the page as its referrer, and redirects (src/redirect/page-route.ts).
  const href = o.preview ? '#' : `/@${o.handle}/${b.id}`;
  return `<li><a href="${escapeHtml(href)}">${t}</a></li>`;
}

export function renderBioPage(
  c: PageContent | (Omit<PageContent, 'blocks'> & { blocks: Array<{ type: string; id: string; text: string }> }),
  o: RenderOptions,
): string {
  const address = `https://${o.host}/@${o.handle}`;
  const social = socialTags({
    type: 'profile',
    url: address,
    title: c.title,
    description: c.bio,
    image: c.avatarUrl,
    card: 'summary',
  });
  const head =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(c.title)}</title>` +
    (c.bio ? `<meta name="description" content="${escapeHtml(c.bio)}">` : '') +
    (o.preview ? '<meta name="robots" content="noindex">' : `<link rel="canonical" href="${escapeHtml(address)}">`) +
    social +
    `<style>${STYLES[c.theme] ?? STYLES.classic}</style></head>`;
  const blocks = c.blocks.map((b) => block(b as PageBlock, o)).join('');
  return (
    head +
    `<body><main>` +
    (c.avatarUrl ? `<img class="avatar" src="${escapeHtml(c.avatarUrl)}" alt="" width="96" height="96">` : '') +
    `<h1>${escapeHtml(c.title)}</h1>` +
    (c.bio ? `<p class="bio">${escapeHtml(c.bio)}</p>` : '') +
    (blocks ? `<ul class="blocks">${blocks}</ul>` : '') +
    `<footer>@${escapeHtml(o.handle)}</footer>` +
    `</main></body></html>`
  );
}
