// A bio page's editor, new or saved: the draft's fields, theme and blocks beside a live preview;
// "Save draft", "Publish" (which saves what changed first), "Unpublish", "Disable" / "Enable" and
// "Delete" by role; the page's state in words with its address. The service's refusals land next
// to the input they name, a block's by its position in what was sent.
import { useMutation } from '@tanstack/react-query';
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { ApiError, asApiError } from '../../api/errors.ts';
import { pagesApi, usePage } from '../../api/pages.ts';
import { keys } from '../../api/keys.ts';
import { queryClient } from '../../api/query-client.ts';
import { can, useMembership } from '../../api/session.ts';
import { useWorkspace } from '../../api/queries.ts';
import type { BioPage } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { useConfirm } from '../../components/confirm.tsx';
import { FormAlert, LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { TextAreaField, TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { HostedImageField } from '../../components/hosted-image.tsx';
import { PageHeader } from '../../components/page.tsx';
import { textInputs } from '../../components/text-inputs.ts';
import { FormSection } from '../../components/form-section.tsx';
import { roleName } from '../../lib/format.ts';
import { BlockList } from './page-blocks.tsx';
import { addressFor, pagePath, pagesPath } from './page-data.ts';
import {
  blockProblem,
  checkDraft,
  createBody,
  draftFromPage,
  EMPTY_DRAFT,
  fieldNames,
  LIMITS,
  previewRequest,
  updateBody,
  type BlockDraft,
  type PageDraft,
  type PageField,
} from './page-form.ts';
import { PagePreview } from './page-preview.tsx';
import { actionsNote, NOTICES, type Notice } from './page-notices.ts';
import { PageStatePanel } from './page-state.tsx';
import { ThemePicker } from './theme-picker.tsx';

const AVATAR_TEXT = {
  label: 'Avatar',
  uploadLabel: 'Upload avatar',
  hint: 'An image hosted by this workspace, shown in a circle above the title: upload one below. Empty for none.',
  uploadHint: 'PNG, JPEG, GIF or WebP, at most 2 MiB. A square image of 192 × 192 pixels or more looks best.',
  alt: "The page's avatar",
  caption: 'How the avatar looks on the page.',
  removeLabel: 'Remove avatar',
};

export default function PageEditor() {
  const { workspaceId: ws, pageId } = useParams<{ workspaceId: string; pageId?: string }>();
  const page = usePage(ws, pageId ?? '');
  const title = pageId ? (page.data ? `Edit @${page.data.handle}` : 'Edit page') : 'New page';
  const eyebrow = (
    <Link href={pagesPath(ws)} className="back-link">
      All pages
    </Link>
  );
  if (pageId && page.isError) {
    const missing = asApiError(page.error).status === 404;
    return (
      <>
        <PageHeader title={missing ? 'Page not found' : title} eyebrow={eyebrow} />
        {missing ? (
          <div className="state">
            <p>This workspace has no such page. It may have been deleted.</p>
          </div>
        ) : (
          <LoadError error={page.error} retry={() => page.refetch()} what="the page" />
        )}
      </>
    );
  }
  if (pageId && !page.data) {
    return (
      <>
        <PageHeader title={title} eyebrow={eyebrow} />
        <Loading label="Loading the page…" />
      </>
    );
  }
  return (
    <>
      <PageHeader title={title} eyebrow={eyebrow} />
      <PageEditorForm key={page.data?.id ?? 'new'} ws={ws} page={pageId ? page.data : undefined} />
    </>
  );
}

function PageEditorForm({ ws, page }: { ws: string; page?: BioPage }) {
  const role = useMembership(ws)!.role;
  const editable = can.editPages(role);
  const [, navigate] = useLocation();
  const justCreated = new URLSearchParams(useSearch()).has('created');
  const [draft, setDraft] = useState<PageDraft>(() => (page ? draftFromPage(page) : EMPTY_DRAFT));
  const [notice, setNotice] = useState<Notice | null>(justCreated ? 'created' : null);
  const [uploadError, setUploadError] = useState<string | undefined>();
  const formRef = useRef<HTMLFormElement>(null);
  const fieldOf = useMemo(() => fieldNames(draft.blocks), [draft.blocks]);
  const errors = useFormErrors<PageField>(fieldOf, formRef);
  const [ask, dialog] = useConfirm();
  // The blocks of the last request sent, in its order: the API names a block by its index there.
  const sent = useRef<BlockDraft[]>([]);

  const set = <K extends keyof PageDraft>(key: K, value: PageDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setNotice(null);
  };

  const showError = (err: unknown) => {
    const e = asApiError(err);
    const inBlock = e.field ? blockProblem(e.field, e.message, sent.current) : undefined;
    if (inBlock) errors.show(new ApiError(e.status, inBlock.message, inBlock.field, e.retryAfter));
    // A taken handle is a 409 that names no field; it can only be the handle's.
    else if (!e.field && e.status === 409) errors.show(new ApiError(e.status, e.message, 'handle', e.retryAfter));
    else errors.show(e);
  };

  /** The page as the service now has it: the list and this screen show it, the form starts from it. */
  const settle = (saved: BioPage) => {
    queryClient.setQueryData(keys.page(ws, saved.id), saved);
    void queryClient.invalidateQueries({ queryKey: keys.pages(ws), exact: true });
    const next = draftFromPage(saved);
    sent.current = next.blocks;
    setDraft(next);
  };

  const save = useMutation({
    mutationFn: async ({ draft: d, publish }: { draft: PageDraft; publish: boolean }) => {
      sent.current = d.blocks;
      if (!page) {
        const made = await pagesApi.create(ws, createBody(d));
        return { page: made.data, outcome: 'created' as const };
      }
      const body = updateBody(d, page);
      let current = page;
      if (Object.keys(body).length) {
        current = (await pagesApi.update(ws, page.id, body)).data;
        // Saved even if publishing fails next: URL blocks are short links now, not to be made twice.
        settle(current);
      }
      if (publish) current = (await pagesApi.publish(ws, page.id)).data;
      return {
        page: current,
        outcome: publish
          ? ('published' as const)
          : Object.keys(body).length
            ? ('saved' as const)
            : ('unchanged' as const),
      };
    },
    onSuccess: ({ page: saved, outcome }) => {
      errors.clear();
      if (outcome === 'created') {
        queryClient.setQueryData(keys.page(ws, saved.id), saved);
        void queryClient.invalidateQueries({ queryKey: keys.pages(ws), exact: true });
        navigate(pagePath(ws, saved.id, '?created=1'), { replace: true });
        return;
      }
      if (outcome !== 'unchanged') settle(saved);
      setNotice(outcome);
    },
    onError: showError,
  });

  const act = useMutation({
    mutationFn: async (action: 'unpublished' | 'disabled' | 'enabled') => {
      const id = page!.id;
      const answer =
        action === 'unpublished'
          ? await pagesApi.unpublish(ws, id)
          : await pagesApi.update(ws, id, { status: action === 'disabled' ? 'DISABLED' : 'ACTIVE' });
      return { action, page: answer.data };
    },
    onSuccess: ({ action, page: changed }) => {
      // The draft being typed stays: these change what visitors see, not the draft.
      queryClient.setQueryData(keys.page(ws, changed.id), changed);
      void queryClient.invalidateQueries({ queryKey: keys.pages(ws), exact: true });
      errors.clear();
      setNotice(action);
    },
    onError: showError,
  });

  const remove = useMutation({
    mutationFn: () => pagesApi.remove(ws, page!.id),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: keys.page(ws, page!.id) });
      void queryClient.invalidateQueries({ queryKey: keys.pages(ws), exact: true });
      navigate(`${pagesPath(ws)}?deleted=${encodeURIComponent(page!.handle)}`);
    },
    onError: showError,
  });

  const send = (publish: boolean) => {
    if (errors.check(checkDraft(draft))) save.mutate({ draft, publish });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send(false);
  };

  const busy = save.isPending || act.isPending || remove.isPending;
  const dirty = page ? Object.keys(updateBody(draft, page)).length > 0 : true;
  const shortDomain = useWorkspace(ws).data?.shortDomain;
  const knownUrl = page?.url ?? (shortDomain ? `https://${shortDomain}/` : undefined);
  const e = errors.fields;
  const input = textInputs<'handle' | 'title' | 'bio'>(draft, set, e);

  return (
    <>
      {notice ? (
        <StatusNotice tone={notice === 'unchanged' ? 'info' : 'success'}>{NOTICES[notice]}</StatusNotice>
      ) : null}
      {page ? (
        <PageStatePanel
          ws={ws}
          page={page}
          editable={editable}
          busy={busy}
          onUnpublish={() => act.mutate('unpublished')}
          onStatus={(status) => act.mutate(status === 'DISABLED' ? 'disabled' : 'enabled')}
        />
      ) : null}
      <div className="page-editor">
        <div className="page-editor-main">
          <form ref={formRef} onSubmit={submit} noValidate aria-label={page ? `Edit @${page.handle}` : 'New page'}>
            <FormAlert message={errors.form} />
            {!editable ? (
              <p className="notice notice-info">
                You can read this page. Your role ({roleName(role)}) cannot change pages.
              </p>
            ) : null}

            <FormSection legend="Page" editable={editable}>
              <div className="grid-2">
                <TextField
                  label="Handle"
                  {...input('handle')}
                  hint={
                    <>
                      Its address: <span className="mono break-anywhere">{addressFor(draft.handle, knownUrl)}</span>.
                      {editable ? ' Letters a–z, digits, - and _.' : ''}
                      {editable && page?.published ? ' A new handle moves the published page at once.' : ''}
                    </>
                  }
                  maxLength={LIMITS.handle}
                  autoCapitalize="none"
                  autoComplete="off"
                  spellCheck={false}
                  required
                  autoFocus={!page}
                />
                <TextField
                  label="Title"
                  {...input('title')}
                  maxLength={LIMITS.title}
                  required
                  hint="The page's heading and its name in search results and shares."
                />
              </div>
              <TextAreaField
                label="Bio"
                {...input('bio')}
                rows={3}
                maxLength={LIMITS.bio}
                hint={`Under the title; at most ${LIMITS.bio} characters.`}
              />
              <HostedImageField
                workspaceId={ws}
                value={draft.avatarUrl}
                onChange={(url) => set('avatarUrl', url)}
                error={e.avatarUrl}
                uploadError={uploadError}
                onUploadError={setUploadError}
                disabled={!editable}
                readOnly={!editable}
                text={editable ? AVATAR_TEXT : { ...AVATAR_TEXT, hint: 'Shown in a circle above the title.' }}
                round
              />
            </FormSection>

            <ThemePicker
              value={draft.theme}
              onChange={(theme) => set('theme', theme)}
              error={e.theme}
              editable={editable}
            />

            <FormSection legend="Blocks" editable={editable} describedBy={e.blocks ? 'blocks-error' : undefined}>
              <p className="field-hint">
                Shown in this order under the title and bio. A link block counts its clicks, as its short link does.
              </p>
              {e.blocks ? (
                <p id="blocks-error" className="field-error">
                  {e.blocks}
                </p>
              ) : null}
              <BlockList
                workspaceId={ws}
                blocks={draft.blocks}
                onChange={(blocks) => set('blocks', blocks)}
                errors={e}
                editable={editable}
              />
            </FormSection>

            {editable ? (
              <div className="form-actions page-form-actions">
                <SubmitButton
                  pending={save.isPending && !save.variables?.publish}
                  disabled={busy}
                  variant={page ? 'plain' : 'primary'}
                >
                  Save draft
                </SubmitButton>
                {page ? (
                  <button
                    type="button"
                    className={`button button-primary${save.isPending && save.variables?.publish ? ' is-busy' : ''}`}
                    disabled={busy}
                    onClick={() => send(true)}
                  >
                    Publish
                  </button>
                ) : null}
                <span className="muted">{actionsNote(page, dirty)}</span>
              </div>
            ) : null}
          </form>
        </div>
        <PagePreview workspaceId={ws} draft={previewRequest(draft)} />
        {page && can.deletePages(role) ? (
          <section className="panel panel-danger page-editor-danger" aria-labelledby="delete-page-heading">
            <h2 id="delete-page-heading">Delete</h2>
            <p className="muted">
              The address stops working at once and the handle is free again. The page's short links stay.
            </p>
            <button
              type="button"
              className="button button-danger"
              disabled={busy}
              onClick={async () => {
                const ok = await ask({
                  title: `Delete @${page.handle}?`,
                  body: 'Its address stops working at once. This cannot be undone.',
                  confirmLabel: 'Delete',
                  danger: true,
                });
                if (ok) remove.mutate();
              }}
            >
              Delete page
            </button>
          </section>
        ) : null}
      </div>
      {dialog}
    </>
  );
}
