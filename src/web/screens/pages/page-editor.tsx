// A bio page's editor, new or saved: the draft's fields, theme and blocks beside a live preview;
// "Save draft", "Publish" (which saves what changed first), "Unpublish", "Disable" / "Enable" and
// "Delete" by role; the page's state in words with its address. The service's refusals land next
// to the input they name, a block's by its position in what was sent.
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { ApiError, asApiError } from '../../api/errors.ts';
import { useCreatePage, useDeletePage, usePage, usePageVisibility, useSavePage } from '../../api/pages.ts';
import { can, useMembership } from '../../api/session.ts';
import { useWorkspace } from '../../api/queries.ts';
import type { BioPage } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { useConfirm } from '../../components/confirm.tsx';
import { FormAlert, LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { DeletePanel } from '../../components/delete-panel.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { PageHeader } from '../../components/page.tsx';
import { ReadOnlyNotice } from '../../components/read-only-notice.tsx';
import { BlockList } from './page-blocks.tsx';
import { PageDetailsSection } from './page-details.tsx';
import { pagePath, pagesPath } from './page-data.ts';
import {
  blockProblem,
  checkDraft,
  createBody,
  draftFromPage,
  EMPTY_DRAFT,
  fieldNames,
  previewRequest,
  updateBody,
  type BlockDraft,
  type PageDraft,
  type PageField,
} from './page-form.ts';
import { PagePreview } from './page-preview.tsx';
import { PageStatePanel } from './page-state.tsx';
import { ThemeSection } from './theme-picker.tsx';

type Notice = 'created' | 'saved' | 'unchanged' | 'published' | 'unpublished' | 'disabled' | 'enabled';

const NOTICES: Record<Notice, string> = {
  created: 'Page created as a draft. Publish it to show it at its address.',
  saved: 'Draft saved. Visitors see it once you publish.',
  unchanged: 'Nothing to save: no field was changed.',
  published: 'Published. Visitors see this version at the page’s address.',
  unpublished: 'Unpublished. The address answers “not found” until you publish again; the draft stays.',
  disabled: 'Disabled. The address answers “not found” until the page is enabled.',
  enabled: 'Enabled.',
};

/** Beside Save and Publish, where the person is: what those two would change now. */
function actionsNote(page: BioPage | undefined, dirty: boolean): string {
  if (!page) return 'A new page is saved as a draft; publish it next.';
  if (dirty) return 'Unsaved changes: Publish saves them first.';
  if (page.status === 'DISABLED') return 'Saved. The page is disabled: visitors get “not found”.';
  if (page.published && !page.hasUnpublishedChanges) return 'Published: visitors see this draft.';
  return 'Draft saved, not published yet.';
}

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

  /** The form starts again from the page as the service now has it. */
  const restart = (saved: BioPage) => {
    const next = draftFromPage(saved);
    sent.current = next.blocks;
    setDraft(next);
  };

  const create = useCreatePage(ws, {
    onSuccess: (made) => {
      errors.clear();
      navigate(pagePath(ws, made.id, '?created=1'), { replace: true });
    },
    onError: showError,
  });
  const save = useSavePage(ws, page, {
    // Saved even if publishing fails next: URL blocks are short links now, not to be made twice.
    onStored: restart,
    onSuccess: ({ page: saved, outcome }) => {
      errors.clear();
      if (outcome !== 'unchanged') restart(saved);
      setNotice(outcome);
    },
    onError: showError,
  });
  // The draft being typed stays: these change what visitors see, not the draft.
  const act = usePageVisibility(ws, page?.id ?? '', {
    onSuccess: (_changed, action) => {
      errors.clear();
      setNotice(action);
    },
    onError: showError,
  });
  const remove = useDeletePage(ws, {
    onSuccess: () => navigate(`${pagesPath(ws)}?deleted=${encodeURIComponent(page!.handle)}`),
    onError: showError,
  });

  const send = (publish: boolean) => {
    if (!errors.check(checkDraft(draft))) return;
    sent.current = draft.blocks;
    if (page) save.mutate({ body: updateBody(draft, page), publish });
    else create.mutate(createBody(draft));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send(false);
  };

  const busy = create.isPending || save.isPending || act.isPending || remove.isPending;
  const dirty = page ? Object.keys(updateBody(draft, page)).length > 0 : true;
  const shortDomain = useWorkspace(ws).data?.shortDomain;
  const knownUrl = page?.url ?? (shortDomain ? `https://${shortDomain}/` : undefined);
  const e = errors.fields;

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
            {!editable ? <ReadOnlyNotice role={role} what="page" things="pages" /> : null}

            <PageDetailsSection
              ws={ws}
              page={page}
              draft={draft}
              set={set}
              errors={e}
              editable={editable}
              knownUrl={knownUrl}
            />

            <ThemeSection
              value={draft.theme}
              onChange={(theme) => set('theme', theme)}
              error={e.theme}
              editable={editable}
            />

            <fieldset
              className="form-section"
              disabled={!editable}
              aria-describedby={e.blocks ? 'blocks-error' : undefined}
            >
              <legend>Blocks</legend>
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
            </fieldset>

            {editable ? (
              <div className="form-actions page-form-actions">
                <SubmitButton
                  pending={create.isPending || (save.isPending && !save.variables?.publish)}
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
          <DeletePanel
            headingId="delete-page-heading"
            className="page-editor-danger"
            label="Delete page"
            question={{
              title: `Delete @${page.handle}?`,
              body: 'Its address stops working at once. This cannot be undone.',
            }}
            ask={ask}
            onConfirmed={() => remove.mutate(page.id)}
            disabled={busy}
          >
            The address stops working at once and the handle is free again. The page's short links stay.
          </DeletePanel>
        ) : null}
      </div>
      {dialog}
    </>
  );
}
