import { useState } from 'react';
import { useParams } from 'wouter';
import { useTags } from '../../api/queries.ts';
import { can, useMembership } from '../../api/session.ts';
import { useCreateTag } from '../../api/settings.ts';
import { ListState } from '../../components/data-table.tsx';
import { EmptyState } from '../../components/feedback.tsx';
import { TextField } from '../../components/fields.tsx';
import { TagChip } from '../../components/tag-chip.tsx';
import { CreateNamedPanel } from './create-named.tsx';
import { SettingsFrame } from './settings-frame.tsx';
import { boundText } from '../../components/text-inputs.ts';

export function Tags() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const list = useTags(ws);
  const [color, setColor] = useState('#64748b');
  const create = useCreateTag(ws);

  return (
    <SettingsFrame workspaceId={ws} title="Tags">
      {can.editLinks(role) ? (
        <CreateNamedPanel
          noun="tag"
          maxLength={100}
          create={create}
          vars={(name) => ({ name, color })}
          more={(errors) => (
            <TextField
              label="Color"
              type="color"
              {...boundText(color, setColor)}
              error={errors.color}
              className="field-color"
            />
          )}
        />
      ) : null}
      <section className="section" aria-labelledby="tags-heading">
        <h2 id="tags-heading">Tags of this workspace</h2>
        <ListState
          read={list}
          loading="Loading tags…"
          what="the tags"
          empty={
            <EmptyState title="No tags yet">
              Tags group links: filter the links list by them, or add one to many links at once.
            </EmptyState>
          }
        >
          {(tags) => (
            <ul className="tag-grid">
              {tags.map((t) => (
                <li key={t.id}>
                  <TagChip name={t.name} color={t.color} />
                  <span className="muted mono">{t.color}</span>
                </li>
              ))}
            </ul>
          )}
        </ListState>
      </section>
    </SettingsFrame>
  );
}
