import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { useTags } from '../../api/queries.ts';
import { can, useMembership } from '../../api/session.ts';
import { useCreateTag } from '../../api/settings.ts';
import { ListState } from '../../components/data-table.tsx';
import { EmptyState, StatusNotice } from '../../components/feedback.tsx';
import { TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { RowFormPanel } from '../../components/row-form-panel.tsx';
import { TagChip } from '../../components/tag-chip.tsx';
import { SettingsFrame } from './settings-frame.tsx';

type Field = 'name' | 'color';
const FIELDS: Record<string, Field> = { name: 'name', color: 'color' };

export function Tags() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const list = useTags(ws);
  const [name, setName] = useState('');
  const [color, setColor] = useState('#64748b');
  const [made, setMade] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);

  const create = useCreateTag(ws, {
    onSuccess: (answer) => {
      setMade(answer.data.name);
      setName('');
      errors.clear();
    },
    onError: (err) => errors.show(err),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMade(null);
    if (errors.check({ name: name.trim() ? undefined : 'Name the tag.' })) create.mutate({ name: name.trim(), color });
  };

  return (
    <SettingsFrame workspaceId={ws} title="Tags">
      {can.editLinks(role) ? (
        <RowFormPanel
          headingId="create-tag-heading"
          heading="Create tag"
          intro={made ? <StatusNotice>Tag {made} created.</StatusNotice> : null}
          formRef={formRef}
          onSubmit={submit}
          formError={errors.form}
          pending={create.isPending}
          submit="Create tag"
        >
          <TextField
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={errors.fields.name}
            maxLength={100}
            className="grow"
          />
          <TextField
            label="Color"
            type="color"
            value={color}
            onChange={(e) => setColor(e.target.value)}
            error={errors.fields.color}
            className="field-color"
          />
        </RowFormPanel>
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
