// An image the workspace hosts (a link's social preview, a page's avatar): its URL, filled in by
// uploading a file through POST /workspaces/{ws}/assets, and how it looks.
import { useMutation } from '@tanstack/react-query';
import { useId } from 'react';
import { api, rawBody } from '../api/client.ts';
import { ApiError, unwrap } from '../api/errors.ts';
import { TextField } from './fields.tsx';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const MAX_BYTES = 2 * 1024 * 1024;

export interface HostedImageText {
  /** The URL input's label ("Preview image"). */
  label: string;
  /** The file input's label ("Upload preview image"). */
  uploadLabel: string;
  hint: string;
  uploadHint: string;
  /** The shown image's alternative text. */
  alt: string;
  caption: string;
  /** When given, a button of this name empties the field. */
  removeLabel?: string;
}

export function HostedImageField({
  workspaceId,
  value,
  onChange,
  error,
  uploadError,
  onUploadError,
  disabled,
  text,
  round = false,
  readOnly = false,
}: {
  workspaceId: string;
  value: string;
  onChange: (url: string) => void;
  error?: string;
  uploadError?: string;
  onUploadError: (message: string | undefined) => void;
  disabled: boolean;
  text: HostedImageText;
  /** Shown in a circle, as an avatar is. */
  round?: boolean;
  /** For a role that changes nothing: the image and its URL, no upload. */
  readOnly?: boolean;
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
        label={text.label}
        type="url"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        error={error}
        hint={text.hint}
        disabled={disabled}
        inputMode="url"
      />
      {readOnly ? null : (
        <div className="field">
          <label htmlFor={uploadId}>{text.uploadLabel}</label>
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
            {upload.isPending ? 'Uploading…' : text.uploadHint}
          </p>
          {uploadError ? (
            <p id={`${uploadId}-error`} className="field-error">
              {uploadError}
            </p>
          ) : null}
        </div>
      )}
      {value ? (
        <figure className={round ? 'preview-figure preview-figure-round' : 'preview-figure'}>
          <img src={value} alt={text.alt} />
          <figcaption className="muted">
            {text.caption}
            {text.removeLabel && !disabled && !readOnly ? (
              <>
                {' '}
                <button type="button" className="button button-small button-quiet" onClick={() => onChange('')}>
                  {text.removeLabel}
                </button>
              </>
            ) : null}
          </figcaption>
        </figure>
      ) : null}
    </div>
  );
}
