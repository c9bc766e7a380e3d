// "New link" over the list: a destination (focused), an optional slug and title; Enter makes the
// link and the list shows it. Where the service may fetch destinations, the title is taken from
// the page until the person types one. "More options" carries what was typed to the full editor
// (link-editor.tsx).
import { type FormEvent, type ReactNode, useId, useRef, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { useCreateLink, useDestinationPreview } from '../../api/links.ts';
import type { DashboardLink } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { FormAlert, StatusNotice } from '../../components/feedback.tsx';
import { NEW_LINK_PARAM } from '../../components/keyboard-help.tsx';
import { TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { useModalDialog } from '../../components/modal-dialog.ts';
import { boundText } from '../../components/text-inputs.ts';
import { useDebouncedValue } from '../../lib/hooks.ts';
import { linkPath, wsPath } from './paths.ts';

type Field = 'url' | 'slug' | 'title';
const FIELDS: Record<string, Field> = { url: 'url', slug: 'slug', title: 'title' };

/** A destination worth asking the service about: an absolute http(s) URL with a host. */
function fetchable(text: string): string {
  try {
    const u = new URL(text.trim());
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname.includes('.') ? u.href : '';
  } catch {
    return '';
  }
}

/**
 * The Links screen's "New link": its button (null for a role that may not make links), and the
 * dialog with, once a link is made, the notice naming it with a copy button. The dialog is in
 * the address (?new=1), so `c` on another screen opens it there; it is replaced, not pushed:
 * Back leaves the list, not the dialog.
 */
export function useQuickCreate(ws: string, mayCreate: boolean): { button: ReactNode; dialog: ReactNode } {
  const [params, setParams] = useSearchParams();
  const creating = mayCreate && params.get(NEW_LINK_PARAM) === '1';
  const setCreating = (on: boolean) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (on) next.set(NEW_LINK_PARAM, '1');
        else next.delete(NEW_LINK_PARAM);
        return next;
      },
      { replace: true },
    );
  const [made, setMade] = useState<DashboardLink | null>(null);
  const button = mayCreate ? (
    <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
      New link
    </button>
  ) : null;
  const dialog = (
    <>
      {creating ? (
        <QuickCreateDialog
          ws={ws}
          onClose={() => setCreating(false)}
          onMade={(link) => {
            setMade(link);
            setCreating(false);
          }}
        />
      ) : null}
      {made ? (
        <StatusNotice>
          <span className="made-link">
            Link created: <Link href={linkPath(ws, made.id)}>{made.shortUrl.replace(/^https?:\/\//, '')}</Link>
            <CopyButton text={made.shortUrl} label={`Copy short URL for ${made.slug}`} />
          </span>
        </StatusNotice>
      ) : null}
    </>
  );
  return { button, dialog };
}

function QuickCreateDialog({
  ws,
  onClose,
  onMade,
}: {
  ws: string;
  onClose: () => void;
  onMade: (link: DashboardLink) => void;
}) {
  const dialog = useModalDialog(onClose);
  const formRef = useRef<HTMLFormElement>(null);
  const titleId = useId();
  const [url, setUrl] = useState('');
  const [slug, setSlug] = useState('');
  const [title, setTitle] = useState('');
  /** Typed by the person: the page's own title no longer replaces it. */
  const [titleTyped, setTitleTyped] = useState(false);
  const page = useDestinationPreview(ws, fetchable(useDebouncedValue(url, 400)));
  const pageTitle = page.data?.title ?? '';
  const shownTitle = titleTyped ? title : title || pageTitle;
  const errors = useFormErrors<Field>(FIELDS, formRef);
  const create = useCreateLink(ws, { onSuccess: (answer) => onMade(answer.data), onError: (e) => errors.show(e) });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (create.isPending) return;
    if (!url.trim()) {
      errors.check({ url: 'Enter the address the short link leads to.' });
      return;
    }
    create.mutate({
      url: url.trim(),
      ...(slug.trim() ? { slug: slug.trim() } : {}),
      ...(shownTitle.trim() ? { title: shownTitle.trim() } : {}),
    });
  };
  const more = new URLSearchParams();
  if (url.trim()) more.set('url', url.trim());
  if (slug.trim()) more.set('slug', slug.trim());
  if (shownTitle.trim()) more.set('title', shownTitle.trim());
  const moreQuery = more.toString();

  return (
    <dialog {...dialog} className="dialog dialog-wide" aria-labelledby={titleId}>
      <h2 id={titleId}>New link</h2>
      <form ref={formRef} onSubmit={submit} noValidate aria-labelledby={titleId}>
        <FormAlert message={errors.form} />
        <TextField
          label="Destination URL"
          type="url"
          inputMode="url"
          {...boundText(url, setUrl)}
          error={errors.fields.url}
          placeholder="https://example.com/page"
          maxLength={2048}
          required
          autoFocus
        />
        <TextField
          label="Slug"
          {...boundText(slug, setSlug)}
          error={errors.fields.slug}
          hint="Letters, digits, - and _. Left empty, one is made up."
          maxLength={64}
          autoCapitalize="none"
          spellCheck={false}
        />
        <TextField
          label="Title"
          value={shownTitle}
          onChange={(e) => {
            setTitle(e.target.value);
            setTitleTyped(true);
          }}
          error={errors.fields.title}
          hint={
            !titleTyped && pageTitle && !title
              ? 'Taken from the page; for you and your team, visitors do not see it.'
              : 'For you and your team; visitors do not see it.'
          }
          maxLength={200}
        />
        <div className="dialog-actions dialog-actions-split">
          <Link href={wsPath(ws, `/links/new${moreQuery ? `?${moreQuery}` : ''}`)} className="button button-quiet">
            More options
          </Link>
          <span className="dialog-actions">
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
            <SubmitButton pending={create.isPending}>Create link</SubmitButton>
          </span>
        </div>
      </form>
    </dialog>
  );
}
