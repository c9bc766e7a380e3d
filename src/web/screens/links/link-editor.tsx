// New link and edit link: one form. A new link is made with what was filled in, then opens as
// an existing link (its short URL, its QR code); an existing link is sent only what changed.
import { useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { useCreateLink, useDeleteLink, useUpdateLink } from '../../api/links.ts';
import { useDomains, useLink, useTags, useWorkspace } from '../../api/queries.ts';
import { can, useMembership } from '../../api/session.ts';
import type { DashboardLink, Domain, Workspace, WorkspaceTag } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { useConfirm } from '../../components/confirm.tsx';
import { DeletePanel } from '../../components/delete-panel.tsx';
import { FormAlert, LoadError, Loading, StatusNotice } from '../../components/feedback.tsx';
import { CheckboxField, Options, SelectField, TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { PageHeader } from '../../components/page.tsx';
import { ReadOnlyNotice } from '../../components/read-only-notice.tsx';
import { textInputs } from '../../components/text-inputs.ts';
import { FormSection } from '../../components/form-section.tsx';
import {
  API_FIELDS,
  checkLinkForm,
  createBody,
  EMPTY_FORM,
  formFromLink,
  updateBody,
  type LinkField,
  type LinkFormBinding,
  type LinkForm,
  type LinkTextField,
} from './link-form.ts';
import { linkPath, wsPath } from './paths.ts';
import { ScheduleSection } from './link-schedule.tsx';
import { LinkSummary } from './link-summary.tsx';
import { NewTagInline } from './new-tag.tsx';
import { TagChecks } from './tag-checks.tsx';
import { QrSection } from './qr-section.tsx';
import { SocialPreviewSection } from './social-preview.tsx';

export function LinkEditor() {
  const { workspaceId: ws, linkId } = useParams<{ workspaceId: string; linkId?: string }>();
  const workspace = useWorkspace(ws);
  const tags = useTags(ws);
  const domains = useDomains(ws);
  const link = useLink(ws, linkId ?? '');
  const title = linkId ? (link.data ? `Edit ${link.data.slug}` : 'Edit link') : 'New link';
  const eyebrow = (
    <Link href={wsPath(ws, '/links')} className="back-link">
      All links
    </Link>
  );

  const reads = linkId ? [workspace, tags, domains, link] : [workspace, tags, domains];
  const failed = reads.find((r) => r.isError);
  if (failed) {
    return (
      <>
        <PageHeader title={title} eyebrow={eyebrow} />
        <LoadError
          error={failed.error}
          retry={() => {
            for (const r of reads) r.refetch();
          }}
          what={linkId ? 'the link' : 'the form'}
        />
      </>
    );
  }
  if (!workspace.data || !tags.data || !domains.data || (linkId && !link.data)) {
    return (
      <>
        <PageHeader title={title} eyebrow={eyebrow} />
        <Loading label={linkId ? 'Loading the link…' : 'Loading the form…'} />
      </>
    );
  }
  return (
    <>
      <PageHeader title={title} eyebrow={eyebrow} />
      <LinkEditorForm
        key={link.data?.id ?? 'new'}
        workspace={workspace.data}
        tags={tags.data}
        domains={domains.data}
        link={linkId ? link.data : undefined}
      />
    </>
  );
}

function LinkEditorForm({
  workspace,
  tags,
  domains,
  link,
}: {
  workspace: Workspace;
  tags: WorkspaceTag[];
  domains: Domain[];
  link?: DashboardLink;
}) {
  const ws = workspace.id;
  const role = useMembership(ws)?.role ?? workspace.role;
  const editable = can.editLinks(role);
  const [, navigate] = useLocation();
  const search = new URLSearchParams(useSearch());
  const justCreated = search.has('created');
  // A new link starts with what the list's "New link" dialog was given ("More options").
  const [form, setForm] = useState<LinkForm>(() =>
    link
      ? formFromLink(link)
      : {
          ...EMPTY_FORM,
          url: search.get('url') ?? '',
          slug: search.get('slug') ?? '',
          title: search.get('title') ?? '',
        },
  );
  const [saved, setSaved] = useState<'created' | 'saved' | 'unchanged' | null>(justCreated ? 'created' : null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<LinkField>(API_FIELDS, formRef);
  const [ask, dialog] = useConfirm();

  const set = <K extends keyof LinkForm>(key: K, value: LinkForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    setSaved(null);
  };
  const input = textInputs<LinkTextField>(form, (key, value) => set(key, value as never), errors.fields);

  const onError = (err: Error) => errors.show(err);
  const create = useCreateLink(ws, {
    onSuccess: (answer) => navigate(linkPath(ws, answer.data.id, '?created=1'), { replace: true }),
    onError,
  });
  const update = useUpdateLink(ws, link?.id ?? '', {
    onSuccess: (answer) => {
      if (!answer) {
        setSaved('unchanged');
        return;
      }
      setForm(formFromLink(answer.data));
      setSaved('saved');
    },
    onError,
  });
  const remove = useDeleteLink(ws, { onSuccess: () => navigate(wsPath(ws, '/links')), onError });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!errors.check(checkLinkForm(form, Boolean(link)))) return;
    if (link) update.mutate(updateBody(form, link));
    else create.mutate(createBody(form));
  };

  // The shared short domain, and the custom domains that serve links (a link keeps its own).
  const domainOptions = domains.filter((d) => d.status === 'ACTIVE' || d.id === link?.domainId);
  const e = errors.fields;
  const binding: LinkFormBinding = { form, set, input, errors: e };

  return (
    <>
      {saved === 'created' ? <StatusNotice>Link created. Its short URL is ready to share.</StatusNotice> : null}
      {saved === 'saved' ? <StatusNotice>Changes saved.</StatusNotice> : null}
      {saved === 'unchanged' ? <StatusNotice tone="info">Nothing to save: no field was changed.</StatusNotice> : null}
      <div className={link ? 'editor' : 'editor editor-new'}>
        {link ? <LinkSummary ws={ws} link={link} /> : null}
        <form
          ref={formRef}
          className="editor-form"
          onSubmit={submit}
          noValidate
          aria-label={link ? 'Edit link' : 'New link'}
        >
          <FormAlert message={errors.form} />
          {!editable ? <ReadOnlyNotice role={role} what="link" things="links" /> : null}

          <FormSection legend="Destination" editable={editable}>
            <TextField
              label="Destination URL"
              type="url"
              inputMode="url"
              {...input('url')}
              placeholder="https://example.com/page"
              required
              maxLength={2048}
              autoFocus={!link}
            />
            <div className="grid-2">
              <TextField
                label="Slug"
                {...input('slug')}
                hint={
                  link
                    ? 'Renaming stops the old short URL at once.'
                    : 'Letters, digits, - and _. Left empty, one is made up.'
                }
                maxLength={64}
                autoCapitalize="none"
                spellCheck={false}
              />
              <SelectField
                label="Domain"
                {...input('domainId')}
                disabled={Boolean(link)}
                hint={
                  link
                    ? 'A link keeps its domain.'
                    : domainOptions.length
                      ? undefined
                      : 'Verified custom domains are listed here.'
                }
              >
                <option value="">Shared short domain</option>
                <Options choices={domainOptions.map((d) => ({ value: d.id, label: d.host }))} />
              </SelectField>
            </div>
            <TextField
              label="Title"
              {...input('title')}
              hint="For you and your team; visitors do not see it."
              maxLength={200}
            />
          </FormSection>

          <FormSection legend="Tags" editable={editable} describedBy={e.tagIds ? 'tags-error' : undefined}>
            {tags.length === 0 ? (
              <p className="muted">No tags yet.{editable ? ' Make one here: it is added to this link.' : ''}</p>
            ) : (
              <TagChecks tags={tags} chosen={form.tagIds} onChange={(ids) => set('tagIds', ids)} />
            )}
            {e.tagIds ? (
              <p id="tags-error" className="field-error">
                {e.tagIds}
              </p>
            ) : null}
            {editable ? <NewTagInline ws={ws} onMade={(tag) => set('tagIds', [...form.tagIds, tag.id])} /> : null}
          </FormSection>

          <ScheduleSection binding={binding} editable={editable} expiredUrlAllowed={workspace.features.expiredUrl} />

          <FormSection legend="Password" editable={editable}>
            <TextField
              label="Password"
              type="password"
              autoComplete="new-password"
              {...input('password')}
              disabled={form.removePassword}
              maxLength={256}
              hint={
                link?.hasPassword
                  ? 'A password is set. Type a new one to change it.'
                  : 'Visitors must enter it before they are sent on. Empty for none.'
              }
            />
            {link?.hasPassword ? (
              <CheckboxField
                label="Remove password"
                checked={form.removePassword}
                onChange={(ev) => set('removePassword', ev.target.checked)}
              />
            ) : null}
          </FormSection>

          <SocialPreviewSection
            binding={binding}
            workspaceId={ws}
            editable={editable}
            fromPage={workspace.destinationFetch}
          />

          {editable ? (
            <div className="form-actions">
              <SubmitButton pending={create.isPending || update.isPending}>Save</SubmitButton>
              <Link href={wsPath(ws, '/links')} className="button button-quiet">
                Back to links
              </Link>
            </div>
          ) : null}
        </form>

        {link ? (
          <div className="editor-more">
            <QrSection workspaceId={ws} link={link} canMake={editable} />
            {can.deleteLinks(role) ? (
              <DeletePanel
                headingId="delete-heading"
                label="Delete link"
                question={{ title: `Delete ${link.slug}?`, body: 'The short URL stops working at once.' }}
                ask={ask}
                onConfirmed={() => remove.mutate(link.id)}
                disabled={remove.isPending}
              >
                The short URL stops working at once. Click history is kept.
              </DeletePanel>
            ) : null}
          </div>
        ) : null}
        {dialog}
      </div>
    </>
  );
}
