// Bio pages ("link in bio"): what a page is and the rules of its fields, without I/O. A page has
// a handle (its address, /@{handle} on the short domain and on the workspace's active custom
// domains), a draft that people edit, and the copy of that draft that was last published, which
// is what visitors see. Link blocks point at short links of the workspace; a block made from a
// URL gets a short link of its own when it is saved (src/operations/pages.ts).
import { invalid } from './errors.ts';
import { randomString } from './ids.ts';

export const PAGE_STATUSES = ['ACTIVE', 'DISABLED'] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];

/**
 * The theme presets. Each pairs its colours so that every text on the page reads at WCAG AA
 * contrast (4.5:1) against what it sits on; the browser tests run axe-core over every theme.
 */
export const PAGE_THEMES = ['classic', 'midnight', 'forest', 'sunrise'] as const;
export type PageTheme = (typeof PAGE_THEMES)[number];

export const BLOCK_TYPES = ['link', 'heading', 'paragraph'] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

export const LIMITS = {
  title: 100,
  bio: 300,
  blocks: 50,
  heading: 100,
  paragraph: 1000,
  link: 100,
} as const;

const HANDLE_CHARS = /^[a-z0-9_-]{1,64}$/;
const BLOCK_ID = /^blk_[a-z0-9]{10}$/;

export type PageBlock =
  | { id: string; type: 'heading' | 'paragraph'; text: string }
  | { id: string; type: 'link'; text: string; linkId: string };

/** What a page shows: the draft, and (a copy of it) the published page. */
export interface PageContent {
  title: string;
  bio: string | null;
  avatarUrl: string | null;
  theme: PageTheme;
  blocks: PageBlock[];
}

/** A block as a caller sends it: a link block names a link of the workspace, or a URL to shorten. */
export interface BlockInput {
  id?: string;
  type: string;
  text: string;
  linkId?: string;
  url?: string;
}

/** Handles use the slug's characters, lowercased. `@` cannot begin a slug, so no handle is reserved. */
export function checkHandle(input: unknown): string {
  const handle = typeof input === 'string' ? input.trim().toLowerCase() : '';
  if (!HANDLE_CHARS.test(handle)) throw invalid('handle must be 1 to 64 characters of a-z, 0-9, _ and -', 'handle');
  return handle;
}

/** Text with its ends trimmed and at most `max` characters; `required` refuses an empty one. */
function text(value: unknown, field: string, max: number, required: boolean): string | null {
  if (value === null || value === undefined) {
    if (required) throw invalid(`${field} is required`, field);
    return null;
  }
  if (typeof value !== 'string') throw invalid(`${field} must be a string`, field);
  const t = value.trim();
  if (!t) {
    if (required) throw invalid(`${field} must not be empty`, field);
    return null;
  }
  if ([...t].length > max) throw invalid(`${field} may be at most ${max} characters`, field);
  return t;
}

export const checkTitle = (v: unknown) => text(v, 'title', LIMITS.title, true)!;
export const checkBio = (v: unknown) => text(v, 'bio', LIMITS.bio, false);

export function checkTheme(v: unknown): PageTheme {
  if (!PAGE_THEMES.includes(v as PageTheme)) throw invalid(`theme must be one of ${PAGE_THEMES.join(', ')}`, 'theme');
  return v as PageTheme;
}

export const newBlockId = () => `blk_${randomString(10)}`;

/**
 * A checked block list: every block's text within its limit, ids kept when they are a block id
 * (so a block's clicks stay its own across edits) and unique, new ones given otherwise. A link
 * block keeps `url` for the caller to turn into a short link; `linkId` is checked by the caller.
 */
export function checkBlocks(
  input: unknown,
): Array<PageBlock | (Omit<PageBlock & { type: 'link' }, 'linkId'> & { linkId?: string; url?: string })> {
  if (!Array.isArray(input)) throw invalid('blocks must be an array', 'blocks');
  if (input.length > LIMITS.blocks) throw invalid(`A page may have at most ${LIMITS.blocks} blocks`, 'blocks');
  const seen = new Set<string>();
  return input.map((raw: BlockInput, i) => {
    const field = `blocks.${i}`;
    if (!raw || typeof raw !== 'object') throw invalid(`${field} must be an object`, field);
    if (!BLOCK_TYPES.includes(raw.type as BlockType))
      throw invalid(`${field}.type must be one of ${BLOCK_TYPES.join(', ')}`, `${field}.type`);
    const type = raw.type as BlockType;
    let id = typeof raw.id === 'string' && BLOCK_ID.test(raw.id) && !seen.has(raw.id) ? raw.id : newBlockId();
    while (seen.has(id)) id = newBlockId();
    seen.add(id);
    const t = text(raw.text, `${field}.text`, LIMITS[type], true)!;
    if (type !== 'link') {
      if (raw.linkId !== undefined || raw.url !== undefined)
        throw invalid(`${field}: only link blocks have linkId or url`, field);
      return { id, type, text: t };
    }
    const hasLink = typeof raw.linkId === 'string' && raw.linkId !== '';
    const hasUrl = typeof raw.url === 'string' && raw.url !== '';
    if (hasLink === hasUrl)
      throw invalid(
        `${field}: a link block names either linkId (a short link of this workspace) or url (to shorten)`,
        `${field}.url`,
      );
    return hasLink ? { id, type, text: t, linkId: raw.linkId! } : { id, type, text: t, url: raw.url! };
  });
}

/** The stored form of a page's content: one JSON text, equal for equal content (publish compares them). */
export function contentText(c: PageContent): string {
  return JSON.stringify({
    title: c.title,
    bio: c.bio,
    avatarUrl: c.avatarUrl,
    theme: c.theme,
    blocks: c.blocks.map((b) =>
      b.type === 'link'
        ? { id: b.id, type: b.type, text: b.text, linkId: b.linkId }
        : { id: b.id, type: b.type, text: b.text },
    ),
  });
}

export function parseContent(text: string): PageContent {
  return JSON.parse(text) as PageContent;
}

export const EMPTY_CONTENT = (title: string): PageContent => ({
  title,
  bio: null,
  avatarUrl: null,
  theme: 'classic',
  blocks: [],
});
