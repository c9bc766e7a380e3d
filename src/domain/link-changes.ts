// Which fields a link change really changed, named as in the PATCH body: link.updated
// carries them, and a change that changes nothing sends no event.

/** The stored fields of a link that a PATCH can change. */
export interface LinkFields {
  original_url: string;
  title: string | null;
  slug: string;
  redirect_type: string;
  expires_at: number | null;
  expired_url: string | null;
  click_limit: number | null;
  start_at: number | null;
  end_at: number | null;
  status: string;
  preview_title: string | null;
  preview_description: string | null;
  preview_image: string | null;
}

/** PATCH body names, in the order of the link.updated contract. */
const FIELD_NAMES: Array<[keyof LinkFields | 'neverExpires' | 'password' | 'tagIds', string]> = [
  ['original_url', 'url'],
  ['title', 'title'],
  ['slug', 'slug'],
  ['redirect_type', 'redirectType'],
  ['expires_at', 'expiresAt'],
  ['neverExpires', 'neverExpires'],
  ['expired_url', 'expiredUrl'],
  ['click_limit', 'clickLimit'],
  ['start_at', 'startAt'],
  ['end_at', 'endAt'],
  ['status', 'status'],
  ['password', 'password'],
  ['tagIds', 'tagIds'],
  ['preview_title', 'previewTitle'],
  ['preview_description', 'previewDescription'],
  ['preview_image', 'previewImage'],
];

const blank = (v: unknown) => v === null || v === undefined;
/** Stored values compare alike on both engines (bigint columns may come back as strings). */
function same(a: unknown, b: unknown): boolean {
  if (blank(a) || blank(b)) return blank(a) && blank(b);
  return String(a) === String(b);
}

/**
 * The names of the fields whose value differs between `before` and `after` (the link with
 * the patch applied). neverExpires is a field of the link too: it changes when the expiry
 * appears or disappears. The password and tags are compared by the caller.
 */
export function changedLinkFields(
  before: LinkFields,
  after: LinkFields,
  also: { password: boolean; tagIds: boolean },
): string[] {
  const changed = new Set<string>();
  for (const [column, name] of FIELD_NAMES) {
    if (column === 'neverExpires') {
      if (blank(before.expires_at) !== blank(after.expires_at)) changed.add(name);
    } else if (column === 'password' || column === 'tagIds') {
      if (also[column]) changed.add(name);
    } else if (!same(before[column], after[column])) {
      changed.add(name);
    }
  }
  return [...changed];
}

/** Two tag id lists name the same set of tags. */
export function sameTagSet(a: string[], b: string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((id) => right.has(id));
}
