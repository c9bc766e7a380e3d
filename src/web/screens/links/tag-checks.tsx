// The editor's tags: a box per tag, and once the workspace has more than fit at a glance, a search
// that narrows the boxes to the tags whose name holds what is typed. Chosen tags stay shown
// whatever is typed, so what the link will carry is always on screen.
import { useId, useState } from 'react';
import type { WorkspaceTag } from '../../api/types.ts';
import { CheckboxField } from '../../components/fields.tsx';
import { TagChip } from '../../components/tag-chip.tsx';
import { searchInForm } from '../../components/text-inputs.ts';

/** Above this many tags the boxes get a search. */
export const TAGS_AT_A_GLANCE = 8;

export function TagChecks({
  tags,
  chosen,
  onChange,
}: {
  tags: WorkspaceTag[];
  chosen: string[];
  onChange: (tagIds: string[]) => void;
}) {
  const id = useId();
  const [q, setQ] = useState('');
  const needle = q.trim().toLowerCase();
  const shown = needle ? tags.filter((t) => chosen.includes(t.id) || t.name.toLowerCase().includes(needle)) : tags;
  return (
    <>
      {tags.length > TAGS_AT_A_GLANCE ? (
        <div className="field tag-search">
          <label htmlFor={id}>Find a tag</label>
          <input id={id} {...searchInForm(q, setQ)} aria-describedby={`${id}-hint`} maxLength={60} spellCheck={false} />
          <p id={`${id}-hint`} className="field-hint" aria-live="polite">
            {needle ? `${shown.length} of ${tags.length} tags shown (chosen ones always).` : `${tags.length} tags.`}
          </p>
        </div>
      ) : null}
      <div className="check-grid">
        {shown.map((t) => (
          <CheckboxField
            key={t.id}
            label={<TagChip name={t.name} color={t.color} />}
            checked={chosen.includes(t.id)}
            onChange={(ev) => onChange(ev.target.checked ? [...chosen, t.id] : chosen.filter((x) => x !== t.id))}
          />
        ))}
      </div>
    </>
  );
}
