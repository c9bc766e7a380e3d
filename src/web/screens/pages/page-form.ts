// The page editor's inputs and what they send. A new page sends everything filled in; a saved
// page only the fields that changed (its blocks as a whole list, ids kept, so each block keeps
// its clicks). The API's field names (`blocks.2.url`) are translated to the inputs they name.
import type {
  BioPage,
  BioPageCreate,
  BioPagePreviewRequest,
  BioPageUpdate,
  PageBlock,
  PageBlockInput,
  PageTheme,
} from '../../api/types.ts';

/** The domain's limits (src/domain/bio-pages.ts), as the inputs' maxLength. */
export const LIMITS = {
  handle: 64,
  title: 100,
  bio: 300,
  heading: 100,
  paragraph: 1000,
  link: 100,
  blocks: 50,
} as const;

export type BlockType = PageBlock['type'];

export const BLOCK_NAMES: Record<BlockType, string> = { heading: 'Heading', paragraph: 'Paragraph', link: 'Link' };

export const THEMES: ReadonlyArray<{ value: PageTheme; name: string; description: string }> = [
  { value: 'classic', name: 'Classic', description: 'Light: dark text on near-white, blue buttons.' },
  { value: 'midnight', name: 'Midnight', description: 'Dark: light text on deep navy, pale buttons.' },
  { value: 'forest', name: 'Forest', description: 'Green: deep green text on pale mint, green buttons.' },
  { value: 'sunrise', name: 'Sunrise', description: 'Warm: dark brown text on cream, orange buttons.' },
];

/** What the editor knows of the short link a link block leads to. */
export interface ChosenLink {
  shortUrl: string | null;
  destination: string | null;
}

export interface BlockDraft {
  /** The editor's own name for the block (new blocks have no id yet). */
  key: string;
  id?: string;
  type: BlockType;
  text: string;
  /** A link block leads to one of the workspace's short links, or to a URL saving shortens. */
  target: 'link' | 'url';
  linkId: string;
  link: ChosenLink | null;
  url: string;
}

export interface PageDraft {
  handle: string;
  title: string;
  bio: string;
  avatarUrl: string;
  theme: PageTheme;
  blocks: BlockDraft[];
}

let made = 0;
const newKey = () => `block-${++made}`;

export function newBlock(type: BlockType): BlockDraft {
  return { key: newKey(), type, text: '', target: 'link', linkId: '', link: null, url: '' };
}

export const EMPTY_DRAFT: PageDraft = { handle: '', title: '', bio: '', avatarUrl: '', theme: 'classic', blocks: [] };

export function draftFromPage(p: BioPage): PageDraft {
  return {
    handle: p.handle,
    title: p.title,
    bio: p.bio ?? '',
    avatarUrl: p.avatarUrl ?? '',
    theme: p.theme,
    blocks: p.blocks.map((b) => ({
      key: newKey(),
      id: b.id,
      type: b.type,
      text: b.text,
      target: 'link',
      linkId: b.linkId ?? '',
      link: b.type === 'link' ? { shortUrl: b.shortUrl, destination: b.destination } : null,
      url: '',
    })),
  };
}

function blockInput(b: BlockDraft): PageBlockInput {
  // Keys in the order savedBlocks writes them: the two are compared as JSON.
  const base: PageBlockInput = b.id
    ? { id: b.id, type: b.type, text: b.text.trim() }
    : { type: b.type, text: b.text.trim() };
  if (b.type !== 'link') return base;
  return b.target === 'url' ? { ...base, url: b.url.trim() } : { ...base, linkId: b.linkId };
}

const savedBlocks = (p: BioPage): PageBlockInput[] =>
  p.blocks.map((b) =>
    b.type === 'link'
      ? { id: b.id, type: b.type, text: b.text, linkId: b.linkId ?? '' }
      : { id: b.id, type: b.type, text: b.text },
  );

const orNull = (s: string) => (s.trim() ? s.trim() : null);

export function createBody(d: PageDraft): BioPageCreate {
  const body: BioPageCreate = {
    handle: d.handle.trim(),
    title: d.title.trim(),
    theme: d.theme,
    blocks: d.blocks.map(blockInput),
  };
  if (d.bio.trim()) body.bio = d.bio.trim();
  if (d.avatarUrl.trim()) body.avatarUrl = d.avatarUrl.trim();
  return body;
}

/** The fields that differ from the page as saved; `{}` when nothing changed. */
export function updateBody(d: PageDraft, p: BioPage): BioPageUpdate {
  const body: BioPageUpdate = {};
  if (d.handle.trim() !== p.handle) body.handle = d.handle.trim();
  if (d.title.trim() !== p.title) body.title = d.title.trim();
  if (orNull(d.bio) !== p.bio) body.bio = orNull(d.bio);
  if (orNull(d.avatarUrl) !== p.avatarUrl) body.avatarUrl = orNull(d.avatarUrl);
  if (d.theme !== p.theme) body.theme = d.theme;
  const blocks = d.blocks.map(blockInput);
  if (JSON.stringify(blocks) !== JSON.stringify(savedBlocks(p))) body.blocks = blocks;
  return body;
}

/**
 * The draft as the preview renders it: blocks without text are left out (the contract wants
 * text), and a link block's destination does not matter there (its links lead nowhere).
 */
export function previewRequest(d: PageDraft): BioPagePreviewRequest {
  return {
    handle: d.handle.trim(),
    title: d.title.trim(),
    bio: orNull(d.bio),
    avatarUrl: orNull(d.avatarUrl),
    theme: d.theme,
    blocks: d.blocks
      .filter((b) => b.text.trim())
      .map((b) => ({ type: b.type, text: b.text.trim().slice(0, LIMITS[b.type]) })),
  };
}

/** The inputs an error can sit next to: the page's fields, and each block's by its key. */
export type PageField = 'handle' | 'title' | 'bio' | 'avatarUrl' | 'theme' | 'blocks' | `${string}:${BlockPart}`;
export type BlockPart = 'text' | 'url' | 'linkId' | 'block';

export const blockField = (key: string, part: BlockPart): PageField => `${key}:${part}`;

/** Every input's key, by itself: the API's block fields are translated to these first. */
export function fieldNames(blocks: BlockDraft[]): Record<string, PageField> {
  const map: Record<string, PageField> = {
    handle: 'handle',
    title: 'title',
    bio: 'bio',
    avatarUrl: 'avatarUrl',
    theme: 'theme',
    blocks: 'blocks',
  };
  for (const b of blocks) {
    for (const part of ['text', 'url', 'linkId', 'block'] as const)
      map[blockField(b.key, part)] = blockField(b.key, part);
  }
  return map;
}

/**
 * The API's name for a field of the blocks it was sent (`blocks.2.url`, `blocks.1.linkId`,
 * `blocks.0`) as the input's key, and its message with the input's own name where the API's
 * message starts with its name for the field: "blocks.2.url must be…" under block 3's
 * Destination URL reads "Destination URL must be…". A link block that picks a short link shows a
 * `url` problem (it named neither) at its choice of link.
 */
export function blockProblem(
  apiField: string,
  message: string,
  sent: BlockDraft[],
): { field: PageField; message: string } | undefined {
  const m = /^blocks\.(\d+)(?:\.(\w+))?$/.exec(apiField);
  const block = m ? sent[Number(m[1])] : undefined;
  if (!m || !block) return undefined;
  const part: BlockPart =
    m[2] === 'text'
      ? 'text'
      : m[2] === 'url' || m[2] === 'linkId'
        ? block.target === 'url'
          ? 'url'
          : 'linkId'
        : 'block';
  const name = {
    text: `${BLOCK_NAMES[block.type]} text`,
    url: 'Destination URL',
    linkId: 'The short link',
    block: 'This block',
  }[part];
  const field = blockField(block.key, part);
  if (message.startsWith(apiField)) return { field, message: `${name}${message.slice(apiField.length)}` };
  const whole = `blocks.${m[1]}`;
  if (message.startsWith(whole)) return { field, message: `This block${message.slice(whole.length)}` };
  return { field, message };
}

/** What the page can tell before sending; the API checks the rest, with its own messages. */
export function checkDraft(d: PageDraft): Partial<Record<PageField, string>> {
  const problems: Partial<Record<PageField, string>> = {};
  if (!d.handle.trim()) problems.handle = 'Enter a handle: the page’s address is /@ and the handle.';
  if (!d.title.trim()) problems.title = 'Enter a title.';
  for (const b of d.blocks) {
    if (!b.text.trim()) {
      problems[blockField(b.key, 'text')] =
        b.type === 'link'
          ? 'Enter the text of the link, or remove the block.'
          : `Enter the ${b.type}’s text, or remove the block.`;
    }
    if (b.type !== 'link') continue;
    if (b.target === 'link' && !b.linkId)
      problems[blockField(b.key, 'linkId')] = 'Choose one of your short links, or remove the block.';
    if (b.target === 'url' && !b.url.trim())
      problems[blockField(b.key, 'url')] = 'Enter the destination URL, such as https://example.com/page.';
  }
  return problems;
}
