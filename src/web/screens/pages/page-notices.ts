// What the page editor says after an action, and beside Save and Publish.
import type { BioPage } from '../../api/types.ts';

export type Notice = 'created' | 'saved' | 'unchanged' | 'published' | 'unpublished' | 'disabled' | 'enabled';

export const NOTICES: Record<Notice, string> = {
  created: 'Page created as a draft. Publish it to show it at its address.',
  saved: 'Draft saved. Visitors see it once you publish.',
  unchanged: 'Nothing to save: no field was changed.',
  published: 'Published. Visitors see this version at the page’s address.',
  unpublished: 'Unpublished. The address answers “not found” until you publish again; the draft stays.',
  disabled: 'Disabled. The address answers “not found” until the page is enabled.',
  enabled: 'Enabled.',
};

/** Beside Save and Publish, where the person is: what those two would change now. */
export function actionsNote(page: BioPage | undefined, dirty: boolean): string {
  if (!page) return 'A new page is saved as a draft; publish it next.';
  if (dirty) return 'Unsaved changes: Publish saves them first.';
  if (page.status === 'DISABLED') return 'Saved. The page is disabled: visitors get “not found”.';
  if (page.published && !page.hasUnpublishedChanges) return 'Published: visitors see this draft.';
  return 'Draft saved, not published yet.';
}
