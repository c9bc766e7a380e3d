// Settings › Tags: making tags, and each tag with how many links carry it, renamed in a panel under
// the list and deleted after a question that says how many links lose it.
import { useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { useTags } from '../../api/queries.ts';
import { can, useMembership } from '../../api/session.ts';
import { useCreateTag, useDeleteTag, useRenameTag } from '../../api/settings.ts';
import type { TagListEntry } from '../../api/types.ts';
import { useConfirm } from '../../components/confirm.tsx';
import { ACTIONS } from '../../components/data-table.tsx';
import { EmptyState, FormAlert } from '../../components/feedback.tsx';
import { TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { OutcomeNotice, useOutcome } from '../../components/outcome-notice.tsx';
import { ConfirmedWriteButton, RowButton } from '../../components/row-buttons.tsx';
import { SubmitOrClose } from '../../components/submit-or-close.tsx';
import { TableSection } from '../../components/table-section.tsx';
import { TagChip } from '../../components/tag-chip.tsx';
import { boundText } from '../../components/text-inputs.ts';
import { plural } from '../../lib/format.ts';
import { CreateNamedPanel } from './create-named.tsx';
import { SettingsFrame } from './settings-frame.tsx';

const links = (n: number) => plural(n, 'link');

export function Tags() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const list = useTags(ws);
  const [color, setColor] = useState('#64748b');
  const create = useCreateTag(ws);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [ask, dialog] = useConfirm();
  const notice = useOutcome();
  const remove = useDeleteTag(ws, {
    onSuccess: (_v, t) => {
      if (renaming === t.id) setRenaming(null);
      notice.done(`Tag ${t.name} deleted; it was taken off ${links(t.linkCount)}.`);
    },
    onError: (err) => notice.failed(err.message),
  });
  const selected = renaming ? list.data?.find((t) => t.id === renaming) : undefined;

  return (
    <SettingsFrame workspaceId={ws} title="Tags">
      <OutcomeNotice outcome={notice.outcome} />
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
      <TableSection
        id="tags"
        heading="Tags of this workspace"
        noun="tags"
        read={list}
        empty={
          <EmptyState title="No tags yet">
            Tags group links: filter the links list by them, or add one to many links at once.
          </EmptyState>
        }
        caption="Tags"
        cards
        headers={['Tag', 'Color', { content: 'Links', className: 'num' }, ACTIONS]}
      >
        {(t) => (
          <tr key={t.id}>
            <td data-label="Tag">
              <TagChip name={t.name} color={t.color} />
            </td>
            <td className="nowrap" data-label="Color">
              <span className="muted mono">{t.color}</span>
            </td>
            <td className="nowrap num" data-label="Links">
              {links(t.linkCount)}
            </td>
            <td className="cell-actions">
              {can.editLinks(role) ? (
                <RowButton label="Rename" name={`Rename ${t.name}`} onClick={() => setRenaming(t.id)} />
              ) : null}
              {/* Deleting a tag takes it off links: for those who may delete links, as the API says. */}
              {can.deleteLinks(role) ? (
                <ConfirmedWriteButton
                  label="Delete"
                  name={`Delete ${t.name}`}
                  title={`Delete the tag ${t.name}?`}
                  ask={ask}
                  write={remove}
                  row={t}
                >
                  {t.linkCount
                    ? `${links(t.linkCount)} ${t.linkCount === 1 ? 'loses' : 'lose'} it; the links themselves stay. This cannot be undone.`
                    : 'No link carries it. This cannot be undone.'}
                </ConfirmedWriteButton>
              ) : null}
            </td>
          </tr>
        )}
      </TableSection>
      {selected ? (
        <RenameTag
          key={selected.id}
          workspaceId={ws}
          tag={selected}
          close={() => setRenaming(null)}
          done={(text) => notice.done(text)}
        />
      ) : null}
      {dialog}
    </SettingsFrame>
  );
}

const RENAME_FIELDS: Record<string, 'name'> = { name: 'name' };

function RenameTag({
  workspaceId,
  tag,
  close,
  done,
}: {
  workspaceId: string;
  tag: TagListEntry;
  close: () => void;
  done: (text: string) => void;
}) {
  const [name, setName] = useState(tag.name);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'name'>(RENAME_FIELDS, formRef);
  const rename = useRenameTag(workspaceId, {
    onSuccess: (answer) => {
      close();
      done(`Tag ${tag.name} renamed to ${answer.data.name}.`);
    },
    onError: (err) => errors.show(err),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ name: name.trim() ? undefined : 'Name the tag.' })) rename.mutate({ tag, name: name.trim() });
  };
  return (
    <section className="panel" aria-labelledby="rename-tag-heading">
      <h2 id="rename-tag-heading">Rename {tag.name}</h2>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <TextField
          label="New name"
          {...boundText(name, setName)}
          error={errors.fields.name}
          maxLength={100}
          hint={`Its ${links(tag.linkCount)} show the new name at once.`}
        />
        <SubmitOrClose pending={rename.isPending} close={close}>
          Save tag
        </SubmitOrClose>
      </form>
    </section>
  );
}
