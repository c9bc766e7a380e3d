import { plural } from '../lib/format.ts';

/** A tag's name with its colour as a dot (the name carries the meaning, the colour helps). */
export function TagChip({ name, color }: { name: string; color: string }) {
  const safe = /^#[0-9a-fA-F]{6}$/.test(color) ? color : '#64748b';
  return (
    <span className="tag-chip">
      <span className="tag-dot" style={{ background: safe }} aria-hidden="true" />
      <span className="tag-name">{name}</span>
    </span>
  );
}

/** The workspace's tags as a combobox's choices, each with its link count. */
export const tagChoices = (tags: ReadonlyArray<{ id: string; name: string; linkCount?: number }>) =>
  tags.map((t) => ({
    value: t.id,
    label: t.name,
    ...(t.linkCount !== undefined ? { detail: plural(t.linkCount, 'link') } : {}),
  }));
