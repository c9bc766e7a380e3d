// The link editor's inputs, and what they send: every field of a new link that was filled in,
// and for an existing link only the fields that changed (PATCH changes only what it is sent).
import type { DashboardLink, DashboardLinkCreate, LinkUpdate } from '../../api/types.ts';
import type { TextInput } from '../../components/text-inputs.ts';
import { isoToLocalInput, localInputToIso } from '../../lib/dates.ts';

export interface LinkForm {
  url: string;
  slug: string;
  domainId: string;
  title: string;
  tagIds: string[];
  redirectType: 'TEMPORARY' | 'PERMANENT';
  startAt: string;
  endAt: string;
  expiresAt: string;
  expiredUrl: string;
  clickLimit: string;
  password: string;
  removePassword: boolean;
  previewTitle: string;
  previewDescription: string;
  previewImage: string;
}

/** The inputs whose value is text (every one but the tags and "remove the password"). */
export type LinkTextField = Exclude<keyof LinkForm, 'tagIds' | 'removePassword'>;

export type LinkField = Exclude<keyof LinkForm, 'removePassword'> | 'upload';

/** The API's field names (body properties) to the editor's inputs. */
export const API_FIELDS: Record<string, LinkField> = {
  url: 'url',
  slug: 'slug',
  domainId: 'domainId',
  title: 'title',
  tagIds: 'tagIds',
  redirectType: 'redirectType',
  startAt: 'startAt',
  endAt: 'endAt',
  expiresAt: 'expiresAt',
  neverExpires: 'expiresAt',
  expiredUrl: 'expiredUrl',
  clickLimit: 'clickLimit',
  password: 'password',
  previewTitle: 'previewTitle',
  previewDescription: 'previewDescription',
  previewImage: 'previewImage',
};

export const EMPTY_FORM: LinkForm = {
  url: '',
  slug: '',
  domainId: '',
  title: '',
  tagIds: [],
  redirectType: 'TEMPORARY',
  startAt: '',
  endAt: '',
  expiresAt: '',
  expiredUrl: '',
  clickLimit: '',
  password: '',
  removePassword: false,
  previewTitle: '',
  previewDescription: '',
  previewImage: '',
};

export function formFromLink(link: DashboardLink): LinkForm {
  return {
    url: link.originalUrl,
    slug: link.slug,
    domainId: link.domainId ?? '',
    title: link.title ?? '',
    tagIds: link.tags.map((t) => t.id),
    redirectType: link.redirectType,
    startAt: isoToLocalInput(link.startAt),
    endAt: isoToLocalInput(link.endAt),
    expiresAt: isoToLocalInput(link.expiresAt),
    expiredUrl: link.expiredUrl ?? '',
    clickLimit: link.clickLimit === null ? '' : String(link.clickLimit),
    password: '',
    removePassword: false,
    previewTitle: link.previewTitle ?? '',
    previewDescription: link.previewDescription ?? '',
    previewImage: link.previewImage ?? '',
  };
}

const MAX_CLICK_LIMIT = 2_147_483_647;

/** What the page can tell before sending (the API says the rest, with its own messages). */
export function checkLinkForm(form: LinkForm, editing: boolean): Partial<Record<LinkField, string>> {
  const problems: Partial<Record<LinkField, string>> = {};
  if (!form.url.trim()) problems.url = 'Enter the destination URL, such as https://example.com/page.';
  // A new link without a slug gets one made up; an existing link keeps one.
  if (editing && !form.slug.trim()) problems.slug = 'Enter a slug: the link keeps one.';
  if (form.clickLimit.trim()) {
    const n = Number(form.clickLimit);
    if (!/^\d+$/.test(form.clickLimit.trim()) || n < 1 || n > MAX_CLICK_LIMIT)
      problems.clickLimit = 'Enter a whole number from 1 to 2,147,483,647.';
  }
  for (const key of ['startAt', 'endAt', 'expiresAt'] as const) {
    if (form[key] && !localInputToIso(form[key])) problems[key] = 'Enter a date and time.';
  }
  return problems;
}

const orNull = (s: string) => (s.trim() ? s.trim() : null);

export function createBody(form: LinkForm): DashboardLinkCreate {
  const body: DashboardLinkCreate = { url: form.url.trim(), redirectType: form.redirectType };
  if (form.slug.trim()) body.slug = form.slug.trim();
  if (form.domainId) body.domainId = form.domainId;
  if (form.title.trim()) body.title = form.title.trim();
  if (form.tagIds.length) body.tagIds = form.tagIds;
  const startAt = localInputToIso(form.startAt);
  const endAt = localInputToIso(form.endAt);
  const expiresAt = localInputToIso(form.expiresAt);
  if (startAt) body.startAt = startAt;
  if (endAt) body.endAt = endAt;
  if (expiresAt) body.expiresAt = expiresAt;
  if (form.expiredUrl.trim()) body.expiredUrl = form.expiredUrl.trim();
  if (form.clickLimit.trim()) body.clickLimit = Number(form.clickLimit);
  if (form.password) body.password = form.password;
  if (form.previewTitle.trim()) body.previewTitle = form.previewTitle.trim();
  if (form.previewDescription.trim()) body.previewDescription = form.previewDescription.trim();
  if (form.previewImage.trim()) body.previewImage = form.previewImage.trim();
  return body;
}

/** The fields that differ from the link as it was loaded; `{}` when nothing changed. */
export function updateBody(form: LinkForm, link: DashboardLink): LinkUpdate {
  const was = formFromLink(link);
  const body: LinkUpdate = {};
  if (form.url.trim() !== was.url) body.url = form.url.trim();
  if (form.slug.trim() !== was.slug) body.slug = form.slug.trim();
  if (form.title.trim() !== was.title) body.title = orNull(form.title);
  if (form.redirectType !== was.redirectType) body.redirectType = form.redirectType;
  if (form.startAt !== was.startAt) body.startAt = localInputToIso(form.startAt);
  if (form.endAt !== was.endAt) body.endAt = localInputToIso(form.endAt);
  if (form.expiresAt !== was.expiresAt) body.expiresAt = localInputToIso(form.expiresAt);
  if (form.expiredUrl.trim() !== was.expiredUrl) body.expiredUrl = orNull(form.expiredUrl);
  if (form.clickLimit.trim() !== was.clickLimit)
    body.clickLimit = form.clickLimit.trim() ? Number(form.clickLimit) : null;
  if (form.removePassword) body.password = null;
  else if (form.password) body.password = form.password;
  const sameTags = form.tagIds.length === was.tagIds.length && form.tagIds.every((id) => was.tagIds.includes(id));
  if (!sameTags) body.tagIds = form.tagIds;
  if (form.previewTitle.trim() !== was.previewTitle) body.previewTitle = orNull(form.previewTitle);
  if (form.previewDescription.trim() !== was.previewDescription)
    body.previewDescription = orNull(form.previewDescription);
  if (form.previewImage.trim() !== was.previewImage) body.previewImage = orNull(form.previewImage);
  return body;
}

/** What a section of the editor's form is given: the form, how to change it, and its errors. */
export interface LinkFormBinding {
  form: LinkForm;
  set: <K extends keyof LinkForm>(key: K, value: LinkForm[K]) => void;
  /** A text input's value, change handler and error (components/text-inputs.ts). */
  input: (key: LinkTextField) => TextInput;
  errors: Partial<Record<LinkField, string>>;
}
