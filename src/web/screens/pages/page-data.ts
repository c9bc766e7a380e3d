// A bio page as the screens show it: its address in the app and its
// state in words (the list's status and the editor's sentence).
import type { BioPage } from '../../api/types.ts';
import { wsPath } from '../links/paths.ts';

export const pagesPath = (ws: string) => wsPath(ws, '/pages');
export const pagePath = (ws: string, pageId: string, rest = '') =>
  wsPath(ws, `/pages/${encodeURIComponent(pageId)}${rest}`);

export type PageState = 'draft' | 'published' | 'changed' | 'disabled';

/** Disabled wins: a disabled page answers 404 whether published or not. */
export function pageState(p: Pick<BioPage, 'status' | 'published' | 'hasUnpublishedChanges'>): PageState {
  if (p.status === 'DISABLED') return 'disabled';
  if (!p.published) return 'draft';
  return p.hasUnpublishedChanges ? 'changed' : 'published';
}

export const STATE_NAMES: Record<PageState, string> = {
  draft: 'Draft',
  published: 'Published',
  changed: 'Published with unpublished changes',
  disabled: 'Disabled',
};

const STATE_TONES: Record<PageState, string> = {
  draft: 'badge-plan',
  published: 'badge-ok',
  changed: 'badge-neutral',
  disabled: 'badge-off',
};

export function stateBadgeClass(state: PageState): string {
  return `badge ${STATE_TONES[state]}`;
}

/** `/@handle` on the host of an address the service gave (`https://sho.rt/@old`), else bare. */
export function addressFor(handle: string, knownUrl?: string): string {
  const shown = handle.trim().toLowerCase() || 'your-handle';
  if (!knownUrl) return `/@${shown}`;
  try {
    return `${new URL(knownUrl).origin}/@${shown}`;
  } catch {
    return `/@${shown}`;
  }
}
