// Settings › Audit log (OWNER and ADMIN; others are not offered it and the API answers 403): every
// change in the workspace, newest first, filtered by person, action, object and time, a page at a
// time, with a CSV download of what the filters select. Secrets show by name only, and an address
// only as its network: that is all the log keeps (docs/dashboard.md).
import { useState } from 'react';
import { useParams } from 'wouter';
import { auditExportUrl, useAuditLog, type AuditEntry, type AuditQuery } from '../../api/audit.ts';
import { useMembers } from '../../api/members.ts';
import { can, useMembership } from '../../api/session.ts';
import { DataTable, ListState } from '../../components/data-table.tsx';
import { EmptyState } from '../../components/feedback.tsx';
import { SelectField, TextField } from '../../components/fields.tsx';
import { formatDateTime, localInputToIso } from '../../lib/dates.ts';
import { SettingsFrame } from './settings-frame.tsx';

const OBJECT_TYPES = [
  'link',
  'tag',
  'qr_code',
  'domain',
  'api_key',
  'member',
  'invitation',
  'goal',
  'report',
  'campaign',
  'webhook',
  'webhook_delivery',
  'page',
  'asset',
  'workspace',
  'user',
];

const actorText = (e: AuditEntry) => {
  const who = e.actor.email ?? e.actor.userId;
  if (e.actor.type === 'cli') return 'Command line';
  if (e.actor.type === 'api_key') return `API key ${e.actor.id} of ${who ?? 'a former member'}`;
  if (e.actor.type === 'anonymous') return 'Not signed in';
  return who ?? 'A former member';
};

/** "name: old → new" per field; a secret by its name alone. */
function Changes({ changes }: { changes: AuditEntry['changes'] }) {
  const names = Object.keys(changes);
  if (!names.length) return <span className="muted">—</span>;
  const show = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  return (
    <ul className="plain-list">
      {names.map((n) => {
        const c = changes[n];
        return (
          <li key={n}>
            <strong>{n}</strong>
            {c.secret ? (
              <span className="muted"> (changed, not shown)</span>
            ) : (
              <>
                {': '}
                {c.from !== undefined ? `${show(c.from)} → ` : null}
                {show(c.to)}
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}

export function AuditLog() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const members = useMembers(ws);
  const [form, setForm] = useState({ userId: '', action: '', objectType: '', objectId: '', from: '', to: '' });
  const query: AuditQuery = {
    userId: form.userId || undefined,
    action: form.action.trim() || undefined,
    objectType: form.objectType || undefined,
    objectId: form.objectId.trim() || undefined,
    from: form.from ? (localInputToIso(form.from) ?? undefined) : undefined,
    to: form.to ? (localInputToIso(form.to) ?? undefined) : undefined,
  };
  const allowed = can.administer(role);
  const log = useAuditLog(ws, query);
  const rows = log.data?.pages.flatMap((p) => p.data) ?? [];
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [key]: e.target.value }));

  if (!allowed)
    return (
      <SettingsFrame workspaceId={ws} title="Audit log">
        <p>The audit log is for owners and admins.</p>
      </SettingsFrame>
    );

  return (
    <SettingsFrame
      workspaceId={ws}
      title="Audit log"
      actions={
        <a className="button" href={auditExportUrl(ws, query)} download>
          Download CSV
        </a>
      }
    >
      <section className="section" aria-labelledby="audit-heading">
        <h2 id="audit-heading">Changes in this workspace</h2>
        <p className="muted">
          Every change, by a person, an API key or the command line, newest first. Passwords, tokens, keys and secrets
          are named, never shown; an address is kept only as its network.
        </p>
        <div className="filters-grid audit-filters" role="group" aria-label="Filter the audit log">
          <SelectField label="Person" value={form.userId} onChange={set('userId')}>
            <option value="">Anyone</option>
            {(members.data ?? []).map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.email}
              </option>
            ))}
          </SelectField>
          <TextField label="Action" placeholder="link.created" value={form.action} onChange={set('action')} />
          <SelectField label="Object type" value={form.objectType} onChange={set('objectType')}>
            <option value="">Any object</option>
            {OBJECT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </SelectField>
          <TextField label="Object id" value={form.objectId} onChange={set('objectId')} />
          <TextField label="From" type="datetime-local" value={form.from} onChange={set('from')} />
          <TextField label="To" type="datetime-local" value={form.to} onChange={set('to')} />
        </div>
        <ListState
          read={{ ...log, data: log.data ? rows : undefined }}
          loading="Loading the audit log…"
          what="the audit log"
          empty={<EmptyState title="No entries">Nothing recorded matches these filters.</EmptyState>}
        >
          {(entries) => (
            <>
              <DataTable
                caption="Audit log, newest first"
                captionId="audit-caption"
                cards
                headers={['When', 'Who and from where', 'Action', 'Object', 'Changes']}
              >
                {entries.map((e) => (
                  <tr key={e.id}>
                    <td>{formatDateTime(e.at)}</td>
                    <td>
                      {actorText(e)}
                      {e.address.network ? <div className="muted">from {e.address.network}</div> : null}
                    </td>
                    <td>
                      <code>{e.action}</code>
                    </td>
                    <td>
                      {e.objectType}
                      {e.objectId ? (
                        <>
                          {' '}
                          <code>{e.objectId}</code>
                        </>
                      ) : null}
                    </td>
                    <td className="audit-changes">
                      <Changes changes={e.changes} />
                    </td>
                  </tr>
                ))}
              </DataTable>
              {log.hasNextPage ? (
                <button
                  type="button"
                  className="button"
                  disabled={log.isFetchingNextPage}
                  onClick={() => log.fetchNextPage()}
                >
                  Load older entries
                </button>
              ) : null}
            </>
          )}
        </ListState>
      </section>
    </SettingsFrame>
  );
}
