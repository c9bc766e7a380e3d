// What to do with the selected links: add a tag, disable, delete (OWNER and ADMIN). Each link
// succeeds or fails on its own; the outcome is listed per link.
import { useState } from 'react';
import { useBulkLinks } from '../../api/links.ts';
import type { BulkLinks, BulkResult, WorkspaceTag } from '../../api/types.ts';
import { useConfirm } from '../../components/confirm.tsx';
import { ComboField } from '../../components/combo-field.tsx';
import { tagChoices } from '../../components/tag-chip.tsx';
import { plural } from '../../lib/format.ts';

export interface BulkOutcome {
  action: BulkLinks['action'];
  results: Array<BulkResult['data'][number] & { slug: string }>;
}

const DONE: Record<BulkLinks['action'], string> = { add_tag: 'Tag added', disable: 'Disabled', delete: 'Deleted' };

export function BulkBar({
  workspaceId,
  selected,
  slugOf,
  tags,
  canDelete,
  onDone,
  onClear,
}: {
  workspaceId: string;
  selected: string[];
  slugOf: (id: string) => string;
  tags: WorkspaceTag[];
  canDelete: boolean;
  onDone: (outcome: BulkOutcome) => void;
  onClear: () => void;
}) {
  const [tagId, setTagId] = useState('');
  const [ask, dialog] = useConfirm();

  const run = useBulkLinks(workspaceId, {
    onSuccess: (result, body) =>
      onDone({ action: body.action, results: result.data.map((r) => ({ ...r, slug: slugOf(r.id) })) }),
  });

  const n = selected.length;
  return (
    <section className="bulkbar" aria-label="Selected links">
      <p className="bulkbar-count">
        <strong>{plural(n, 'link')}</strong> selected
      </p>
      <div className="bulkbar-group">
        <ComboField
          className="bulkbar-tag"
          label="Tag to add"
          noun="tag"
          placeholder={tags.length ? 'Type to find a tag' : 'No tags yet'}
          choices={tagChoices(tags)}
          value={tagId}
          onChange={setTagId}
          disabled={tags.length === 0}
        />
        <button
          type="button"
          className="button button-small"
          disabled={!tagId || run.isPending}
          onClick={() => run.mutate({ action: 'add_tag', linkIds: selected, tagId })}
        >
          Add tag
        </button>
      </div>
      <div className="bulkbar-group">
        <button
          type="button"
          className="button button-small"
          disabled={run.isPending}
          onClick={() => run.mutate({ action: 'disable', linkIds: selected })}
        >
          Disable
        </button>
        {canDelete ? (
          <button
            type="button"
            className="button button-small button-danger"
            disabled={run.isPending}
            onClick={async () => {
              const ok = await ask({
                title: `Delete ${plural(n, 'link')}?`,
                body: 'Deleted links stop redirecting at once. Their click history is kept.',
                confirmLabel: 'Delete',
                danger: true,
              });
              if (ok) run.mutate({ action: 'delete', linkIds: selected });
            }}
          >
            Delete
          </button>
        ) : null}
        <button type="button" className="button button-small button-quiet" onClick={onClear}>
          Clear selection
        </button>
      </div>
      {run.isError ? (
        <p role="alert" className="field-error bulkbar-error">
          {run.error.message}
        </p>
      ) : null}
      {dialog}
    </section>
  );
}

/** The outcome of the last bulk action, link by link. */
export function BulkOutcomeNotice({ outcome, onDismiss }: { outcome: BulkOutcome; onDismiss: () => void }) {
  const ok = outcome.results.filter((r) => r.ok).length;
  const failed = outcome.results.length - ok;
  return (
    <div role="status" className={`notice ${failed ? 'notice-warning' : 'notice-success'} bulk-outcome`}>
      <p>
        <strong>
          {DONE[outcome.action]}: {plural(ok, 'link')}
          {failed ? `; ${plural(failed, 'link')} refused` : ''}.
        </strong>
      </p>
      <ul className="bulk-results">
        {outcome.results.map((r) => (
          <li key={r.id} className={r.ok ? 'ok' : 'failed'}>
            <span className="slug">{r.slug}</span>: {r.ok ? DONE[outcome.action] : (r.error ?? 'Refused')}
          </li>
        ))}
      </ul>
      <button type="button" className="button button-small button-quiet" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
