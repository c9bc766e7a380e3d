// The link editor's "Social preview": the title, description and image that sites and chat apps
// show when the short URL is shared; the image is a URL the workspace hosts, filled in by uploading.
// Where the service fetches destinations, the title and description can be taken from the page.
import { useState } from 'react';
import { asApiError } from '../../api/errors.ts';
import { readDestinationPreview } from '../../api/links.ts';
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
  fromPage = false,
}: {
  binding: LinkFormBinding;
  workspaceId: string;
  editable: boolean;
  /** The deployment fetches destinations (DESTINATION_FETCH): offer "Take from the page". */
  fromPage?: boolean;
}) {
  const [uploadError, setUploadError] = useState<string | undefined>();
  const [taking, setTaking] = useState(false);
  const [taken, setTaken] = useState<string | null>(null);
  const take = async () => {
    setTaking(true);
    setTaken(null);
    try {
      const page = await readDestinationPreview(workspaceId, form.url.trim());
      if (page.problem) setTaken(page.problem);
      else if (!page.title && !page.description) setTaken('The page names no title or description.');
      else {
        if (page.title) set('previewTitle', page.title);
        if (page.description) set('previewDescription', page.description);
        setTaken('Taken from the page: check them before saving.');
      }
    } catch (err) {
      setTaken(asApiError(err).message);
    } finally {
      setTaking(false);
    }
  };
  return (
    <FormSection legend="Social preview" editable={editable}>
      <p className="field-hint">What sites and chat apps show when the short URL is shared.</p>
      {fromPage && editable ? (
        <div className="button-row">
          <button
            type="button"
            className="button button-small"
            onClick={() => void take()}
            disabled={!/^https?:\/\//i.test(form.url.trim())}
            aria-busy={taking}
          >
            Take title and description from the page
          </button>
          {taken ? (
            <span role="status" className="muted">
              {taken}
            </span>
          ) : null}
        </div>
      ) : null}
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
