// A tag made where a link is edited, and ticked for it at once: no trip to Settings.
import { useState } from 'react';
import { asApiError } from '../../api/errors.ts';
import { useCreateTag } from '../../api/settings.ts';
import type { WorkspaceTag } from '../../api/types.ts';
import { TextField } from '../../components/fields.tsx';
import { boundText } from '../../components/text-inputs.ts';

/** Settings › Tags' color for a tag made without choosing one. */
const DEFAULT_COLOR = '#64748b';

export function NewTagInline({ ws, onMade }: { ws: string; onMade: (tag: WorkspaceTag) => void }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const create = useCreateTag(ws, {
    onSuccess: (answer) => {
      onMade(answer.data);
      setName('');
      setError(undefined);
    },
    onError: (err) => setError(asApiError(err).message),
  });
  const add = () => {
    if (create.isPending) return;
    if (!name.trim()) return setError('Name the tag.');
    create.mutate({ name: name.trim(), color: DEFAULT_COLOR });
  };
  return (
    <div className="new-tag">
      <TextField
        label="New tag"
        {...boundText(name, setName)}
        error={error}
        maxLength={100}
        // Enter adds the tag; it must not send the link's form.
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            add();
          }
        }}
      />
      <button type="button" className="button" onClick={add} aria-busy={create.isPending}>
        Add tag
      </button>
    </div>
  );
}
