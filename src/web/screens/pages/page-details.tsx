// The page editor's "Page": its handle (with the address it gives), title, bio and avatar.
import { useState } from 'react';
import type { BioPage } from '../../api/types.ts';
import { TextAreaField, TextField } from '../../components/fields.tsx';
import { HostedImageField } from '../../components/hosted-image.tsx';
import { addressFor } from './page-data.ts';
import { LIMITS, type PageDraft, type PageField } from './page-form.ts';

const AVATAR_TEXT = {
  label: 'Avatar',
  uploadLabel: 'Upload avatar',
  hint: 'An image hosted by this workspace, shown in a circle above the title: upload one below. Empty for none.',
  uploadHint: 'PNG, JPEG, GIF or WebP, at most 2 MiB. A square image of 192 × 192 pixels or more looks best.',
  alt: "The page's avatar",
  caption: 'How the avatar looks on the page.',
  removeLabel: 'Remove avatar',
};

export function PageDetailsSection({
  ws,
  page,
  draft,
  set,
  errors: e,
  editable,
  knownUrl,
}: {
  ws: string;
  page?: BioPage;
  draft: PageDraft;
  set: <K extends keyof PageDraft>(key: K, value: PageDraft[K]) => void;
  errors: Partial<Record<PageField, string>>;
  editable: boolean;
  /** The page's address, or the workspace's short domain's, to show the handle's address by. */
  knownUrl?: string;
}) {
  const [uploadError, setUploadError] = useState<string | undefined>();
  return (
    <fieldset className="form-section" disabled={!editable}>
      <legend>Page</legend>
      <div className="grid-2">
        <TextField
          label="Handle"
          value={draft.handle}
          onChange={(ev) => set('handle', ev.target.value)}
          error={e.handle}
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
          value={draft.title}
          onChange={(ev) => set('title', ev.target.value)}
          error={e.title}
          maxLength={LIMITS.title}
          required
          hint="The page's heading and its name in search results and shares."
        />
      </div>
      <TextAreaField
        label="Bio"
        value={draft.bio}
        onChange={(ev) => set('bio', ev.target.value)}
        error={e.bio}
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
    </fieldset>
  );
}
