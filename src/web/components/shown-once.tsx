// A secret the service shows only in the answer that made it (an API key, a webhook's signing
// secret): selected on focus, copied with one button, put away with "Done".
import type { ReactNode } from 'react';
import { CopyButton } from './copy-button.tsx';
import { TextField } from './fields.tsx';

export function ShownOnce({
  label,
  value,
  copyLabel,
  onDone,
  children,
}: {
  /** The read-only input's label. */
  label: string;
  value: string;
  /** The copy button's name and text. */
  copyLabel: string;
  onDone: () => void;
  /** The warning under it: what the secret is for and that it is not shown again. */
  children: ReactNode;
}) {
  return (
    <div className="secret">
      <TextField label={label} value={value} readOnly onFocus={(e) => e.target.select()} />
      <div className="button-row">
        <CopyButton text={value} label={copyLabel} visible={copyLabel} />
        <button type="button" className="button button-small button-quiet" onClick={onDone}>
          Done
        </button>
      </div>
      <p className="notice notice-warning">{children}</p>
    </div>
  );
}
