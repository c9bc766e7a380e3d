// The social preview image: a URL the workspace hosts, filled in by uploading an image.
import { useMutation } from '@tanstack/react-query';
import { useId } from 'react';
import { api, rawBody } from '../../api/client.ts';
import { ApiError, unwrap } from '../../api/errors.ts';
import { TextField } from '../../components/fields.tsx';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const MAX_BYTES = 2 * 1024 * 1024;

export function PreviewImageField({
  workspaceId,
  value,
  onChange,
  error,
  uploadError,
  onUploadError,
  disabled,
}: {
  workspaceId: string;
  value: string;
  onChange: (url: string) => void;
  error?: string;
  uploadError?: string;
  onUploadError: (message: string | undefined) => void;
  disabled: boolean;
}) {
  const uploadId = useId();
  const upload = useMutation({
    mutationFn: (file: File) => {
      if (!IMAGE_TYPES.includes(file.type)) throw new ApiError(0, 'Choose a PNG, JPEG, GIF or WebP image.');
      if (file.size > MAX_BYTES) throw new ApiError(0, 'Choose an image of at most 2 MiB.');
      return unwrap(
        api.POST('/workspaces/{workspaceId}/assets', {
          params: { path: { workspaceId } },
          // The contract types a binary body as a string; the browser sends the file's bytes.
          body: file as unknown as string,
          ...rawBody(file.type),
        }),
      );
    },
    onMutate: () => onUploadError(undefined),
    onSuccess: (asset) => onChange(asset.url),
    onError: (err) => onUploadError(err.message),
  });

  return (
    <div className="preview-image">
      <TextField
        label="Preview image"
        type="url"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        error={error}
        hint="An image hosted by this workspace: upload one below."
        disabled={disabled}
        inputMode="url"
      />
      <div className="field">
        <label htmlFor={uploadId}>Upload preview image</label>
        <input
          id={uploadId}
          type="file"
          accept={IMAGE_TYPES.join(',')}
          disabled={disabled || upload.isPending}
          aria-invalid={uploadError ? true : undefined}
          aria-describedby={`${uploadId}-hint${uploadError ? ` ${uploadId}-error` : ''}`}
          onChange={(e) => {
            const file = e.target.files?.[0];
            if (file) upload.mutate(file);
            e.target.value = '';
          }}
        />
        <p id={`${uploadId}-hint`} className="field-hint">
          {upload.isPending ? 'Uploading…' : 'PNG, JPEG, GIF or WebP, at most 2 MiB. Social sites show it best at 1200 × 630 pixels.'}
        </p>
        {uploadError ? (
          <p id={`${uploadId}-error`} className="field-error">
            {uploadError}
          </p>
        ) : null}
      </div>
      {value ? (
        <figure className="preview-figure">
          <img src={value} alt="The link's preview image" />
          <figcaption className="muted">How the image looks; social sites crop it to fit their cards.</figcaption>
        </figure>
      ) : null}
    </div>
  );
}
