// The summary's ids as people know them, from the answer's `names`: a link by its short URL, a
// campaign by its name, a QR code by its link. An id the workspace does not know stays an id.
import type { ConversionNames } from '../../api/types.ts';

export interface Named {
  /** Full text (the short URL with its scheme, for the CSV). */
  text: string;
  /** What the screen shows (the short URL without https://). */
  shown: string;
  title: string | null;
  deleted: boolean;
  known: boolean;
}

const bare = (url: string) => url.replace(/^https?:\/\//, '');

export function linkName(names: ConversionNames, id: string): Named {
  const l = names.links.find((x) => x.id === id);
  return l
    ? { text: l.shortUrl, shown: bare(l.shortUrl), title: l.title, deleted: l.deleted, known: true }
    : { text: id, shown: id, title: null, deleted: false, known: false };
}

export function qrName(names: ConversionNames, id: string): Named {
  const q = names.qrCodes.find((x) => x.id === id);
  return q
    ? {
        text: `QR code of ${q.shortUrl}`,
        shown: `QR code of ${bare(q.shortUrl)}`,
        title: null,
        deleted: q.deleted,
        known: true,
      }
    : { text: id, shown: id, title: null, deleted: false, known: false };
}

export function campaignName(names: ConversionNames, id: string): string {
  return names.campaigns.find((c) => c.id === id)?.name ?? id;
}
