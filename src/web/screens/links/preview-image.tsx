// The social preview image: a URL the workspace hosts, filled in by uploading an image.
import { HostedImageField } from '../../components/hosted-image.tsx';

const TEXT = {
  label: 'Preview image',
  uploadLabel: 'Upload preview image',
  hint: 'An image hosted by this workspace: upload one below.',
  uploadHint: 'PNG, JPEG, GIF or WebP, at most 2 MiB. Social sites show it best at 1200 × 630 pixels.',
  alt: "The link's preview image",
  caption: 'How the image looks; social sites crop it to fit their cards.',
};

export function PreviewImageField(props: {
  workspaceId: string;
  value: string;
  onChange: (url: string) => void;
  error?: string;
  uploadError?: string;
  onUploadError: (message: string | undefined) => void;
  disabled: boolean;
}) {
  return <HostedImageField {...props} text={TEXT} />;
}
