// The link editor's "Social preview": the title, description and image that sites and chat apps
// show when the short URL is shared; the image is a URL the workspace hosts, filled in by uploading.
import { useState } from 'react';
import { TextAreaField, TextField } from '../../components/fields.tsx';
import { HostedImageField } from '../../components/hosted-image.tsx';
import { FormSection } from '../../components/form-section.tsx';
import type { LinkFormBinding } from './link-form.ts';

const IMAGE_TEXT = {
  label: 'Preview image',
  uploadLabel: 'Upload preview image',
  hint: 'An image hosted by this workspace: upload one below.',
  uploadHint: 'PNG, JPEG, GIF or WebP, at most 2 MiB. Social sites show it best at 1200 × 630 pixels.',
  alt: "The link's preview image",
  caption: 'How the image looks; social sites crop it to fit their cards.',
};

export function SocialPreviewSection({
  binding: { form, set, input, errors: e },
  workspaceId,
  editable,
}: {
  binding: LinkFormBinding;
  workspaceId: string;
  editable: boolean;
}) {
  const [uploadError, setUploadError] = useState<string | undefined>();
  return (
    <FormSection legend="Social preview" editable={editable}>
      <p className="field-hint">What sites and chat apps show when the short URL is shared.</p>
      <TextField label="Preview title" {...input('previewTitle')} maxLength={300} />
      <TextAreaField label="Preview description" {...input('previewDescription')} rows={3} maxLength={1000} />
      <HostedImageField
        workspaceId={workspaceId}
        value={form.previewImage}
        onChange={(url) => set('previewImage', url)}
        error={e.previewImage}
        uploadError={uploadError}
        onUploadError={setUploadError}
        disabled={!editable}
        text={IMAGE_TEXT}
      />
    </FormSection>
  );
}
