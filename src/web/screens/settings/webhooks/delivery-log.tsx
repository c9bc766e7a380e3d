// Settings › Webhooks: the delivery log (newest first, filtered by status, event and
// subscription), each delivery opening to its attempts with the request sent and the first 4 KiB
// of each answer; "Replay" on a FAILED Variant B delivery, "Mark delivered" / "Mark failed" on an
// UNKNOWN one; and the event catalogue with each event's payload schema and example.
import { useState } from 'react';
import { ACTIONS, DataTable, ListState } from '../../../components/data-table.tsx';
import { EmptyState, LoadError, Loading } from '../../../components/feedback.tsx';
import { OutcomeNotice, useOutcome } from '../../../components/outcome-notice.tsx';
import { SelectField } from '../../../components/fields.tsx';
import { RowButton } from '../../../components/row-buttons.tsx';
import { formatDateTime } from '../../../lib/dates.ts';
import {
  subscriptionName,
  useActOnDelivery,
  useDelivery,
  useDeliveryLog,
  type DeliveryStatus,
  type WebhookAttempt,
  type WebhookCatalog,
  type WebhookDelivery,
  type WebhookSubscription,
} from '../../../api/webhooks.ts';

type Filter = 'status' | 'event' | 'subscriptionId';

const STATUSES: DeliveryStatus[] = ['PENDING', 'SENDING', 'DELIVERED', 'FAILED', 'UNKNOWN'];

const statusTone: Record<DeliveryStatus, string> = {
  PENDING: 'badge-neutral',
  SENDING: 'badge-neutral',
  DELIVERED: 'badge-ok',
  FAILED: 'badge-error',
  UNKNOWN: 'badge-off',
};

/** JSON text shown as it was sent, or pretty when it parses (the request body is one line). */
function Code({ text, label }: { text: string; label: string }) {
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: shown as it is.
  }
  return (
    <pre className="code-block" tabIndex={0} aria-label={label}>
      {shown === '' ? '(empty)' : shown}
    </pre>
  );
}

/**
 * One attempt: a line with its time, duration and answer that opens to the request sent and the
 * answer's first 4 KiB. A delivery retried five times shows five short lines with the newest one
 * open, not five screens of headers.
 */
export function AttemptView({ attempt: a, open = true }: { attempt: WebhookAttempt; open?: boolean }) {
  return (
    <details className="attempt" open={open}>
      <summary>
        <strong>Attempt {a.attempt}</strong> at {formatDateTime(a.startedAt)}
        {a.durationMs !== null ? `, ${a.durationMs} ms` : ''}:{' '}
        {a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? 'no answer')}
        {a.outcome ? <span className="muted"> ({a.outcome})</span> : null}
      </summary>
      <div className="attempt-body">
        {a.statusCode !== null && a.error ? <p className="muted">{a.error}</p> : null}
        {a.request ? (
          <>
            <h4>Request headers</h4>
            <Code
              label={`Request headers of attempt ${a.attempt}`}
              text={Object.entries(a.request.headers)
                .map(([k, v]) => `${k}: ${v}`)
                .join('\n')}
            />
            <h4>Request body</h4>
            <Code label={`Request body of attempt ${a.attempt}`} text={a.request.body} />
          </>
        ) : (
          <p className="muted">Nothing was sent.</p>
        )}
        {a.response ? (
          <>
            <h4>Response body{a.response.truncated ? ' (first 4 KiB)' : ''}</h4>
            <Code label={`Response body of attempt ${a.attempt}`} text={a.response.body} />
          </>
        ) : null}
      </div>
    </details>
  );
}

function DeliveryDetail({ workspaceId, delivery }: { workspaceId: string; delivery: WebhookDelivery }) {
  const detail = useDelivery(workspaceId, delivery.id);
  if (detail.isPending) return <Loading label="Loading attempts…" />;
  if (detail.isError) return <LoadError error={detail.error} retry={() => detail.refetch()} what="the attempts" />;
  if (!detail.data.attempts.length) return <p className="muted">No attempt yet.</p>;
  return (
    <div className="attempts" role="region" aria-label={`Attempts of delivery ${delivery.id}`}>
      {detail.data.attempts.map((a, i, all) => (
        <AttemptView key={a.attempt} attempt={a} open={i === all.length - 1} />
      ))}
    </div>
  );
}

export function DeliveryLog({
  workspaceId,
  subscriptions,
  catalog,
  mayAct,
}: {
  workspaceId: string;
  subscriptions: WebhookSubscription[];
  catalog: WebhookCatalog;
  mayAct: boolean;
}) {
  // Each filter's value; empty matches anything.
  const [filter, setFilter] = useState<Record<Filter, string>>({ status: '', event: '', subscriptionId: '' });
  const [open, setOpen] = useState<string | null>(null);
  const notice = useOutcome();
  const query = {
    status: (filter.status || undefined) as DeliveryStatus | undefined,
    event: filter.event || undefined,
    subscriptionId: filter.subscriptionId || undefined,
  };
  const log = useDeliveryLog(workspaceId, query);
  const act = useActOnDelivery(workspaceId, {
    onSuccess: (_v, { d, action }) =>
      notice.done(
        action === 'replay'
          ? `Delivery ${d.id} sent again with the same id and body.`
          : `Delivery ${d.id} marked ${action === 'DELIVERED' ? 'delivered' : 'failed'}.`,
      ),
    onError: (err) => notice.failed(err.message),
  });
  const names = [...new Set(catalog.flatMap((c) => c.events.map((e) => e.name)))].sort();
  const urlOf = (id: string) => subscriptions.find((s) => s.id === id)?.url ?? id;
  // Every page loaded so far, newest first.
  const rows = log.data?.pages.flatMap((p) => p.data) ?? [];
  // Each filter: what it sets, its label, and its choices as [value, text].
  const filters: [Filter, string, (readonly [string, string])[]][] = [
    ['status', 'Status', STATUSES.map((s) => [s, s])],
    ['event', 'Event', names.map((n) => [n, n])],
    ['subscriptionId', 'Subscription', subscriptions.map((s) => [s.id, subscriptionName(s)])],
  ];

  return (
    <section className="section" aria-labelledby="log-heading">
      <h2 id="log-heading">Delivery log</h2>
      <OutcomeNotice outcome={notice.outcome} />
      <div className="filters-grid" role="group" aria-label="Filter deliveries">
        {filters.map(([key, label, options]) => (
          <SelectField
            key={key}
            label={label}
            value={filter[key]}
            onChange={(e) => setFilter((f) => ({ ...f, [key]: e.target.value }))}
          >
            <option value="">Any {label.toLowerCase()}</option>
            {options.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </SelectField>
        ))}
      </div>
      <ListState
        read={{ ...log, data: log.data ? rows : undefined }}
        loading="Loading deliveries…"
        what="the deliveries"
        empty={<EmptyState title="No deliveries">Deliveries appear here as events happen, newest first.</EmptyState>}
      >
        {(rows) => (
          <>
            <DataTable
              caption="Webhook deliveries, newest first"
              captionId="log-caption"
              cards
              headers={['Created', 'Event', 'Endpoint', 'Status', 'Attempts', 'Last answer', ACTIONS]}
            >
              {rows.map((d) => (
                <DeliveryRow
                  key={d.id}
                  d={d}
                  url={urlOf(d.subscriptionId)}
                  open={open === d.id}
                  toggle={() => setOpen(open === d.id ? null : d.id)}
                  mayAct={mayAct}
                  busy={act.isPending}
                  act={(action) => act.mutate({ d, action })}
                  workspaceId={workspaceId}
                />
              ))}
            </DataTable>
            {log.hasNextPage ? (
              <button
                type="button"
                className="button"
                disabled={log.isFetchingNextPage}
                onClick={() => log.fetchNextPage()}
              >
                Load older deliveries
              </button>
            ) : null}
          </>
        )}
      </ListState>
    </section>
  );
}

function DeliveryRow({
  d,
  url,
  open,
  toggle,
  mayAct,
  busy,
  act,
  workspaceId,
}: {
  d: WebhookDelivery;
  url: string;
  open: boolean;
  toggle: () => void;
  mayAct: boolean;
  busy: boolean;
  act: (action: 'replay' | 'DELIVERED' | 'FAILED') => void;
  workspaceId: string;
}) {
  return (
    <>
      <tr>
        <td className="nowrap" data-label="Created">
          {formatDateTime(d.createdAt)}
        </td>
        <td data-label="Event">
          <code>{d.eventType}</code> {d.test ? <span className="badge badge-neutral">Test</span> : null}
        </td>
        <td className="cell-url" data-label="Endpoint">
          <code>{url}</code> <span className="muted">(Variant {d.variant})</span>
        </td>
        <td data-label="Status">
          <span className={`badge ${statusTone[d.status]}`}>{d.status}</span>
        </td>
        <td data-label="Attempts">{d.attempts}</td>
        <td data-label="Last answer">
          {d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? '—')}
        </td>
        <td>
          <div className="row-actions">
            <button
              type="button"
              className="button button-small"
              aria-expanded={open}
              aria-label={`Attempts of delivery ${d.id}`}
              onClick={toggle}
            >
              Attempts
            </button>
            {mayAct && d.variant === 'B' && d.status === 'FAILED' && !d.test ? (
              <RowButton
                label="Replay"
                name={`Replay delivery ${d.id}`}
                disabled={busy}
                onClick={() => act('replay')}
              />
            ) : null}
            {mayAct && d.status === 'UNKNOWN' ? (
              <>
                <RowButton
                  label="Mark delivered"
                  name={`Mark delivered: delivery ${d.id}`}
                  disabled={busy}
                  onClick={() => act('DELIVERED')}
                />
                <RowButton
                  label="Mark failed"
                  name={`Mark failed: delivery ${d.id}`}
                  disabled={busy}
                  onClick={() => act('FAILED')}
                />
              </>
            ) : null}
          </div>
        </td>
      </tr>
      {open ? (
        <tr>
          <td colSpan={7}>
            {d.status === 'UNKNOWN' ? (
              <p className="notice notice-info">
                The request was sent and no answer came in time: the endpoint may or may not have acted. Check on the
                receiving side, then mark the delivery.
              </p>
            ) : null}
            <DeliveryDetail workspaceId={workspaceId} delivery={d} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

export function Catalogue({ catalog }: { catalog: WebhookCatalog }) {
  return (
    <section className="section" aria-labelledby="catalogue-heading">
      <h2 id="catalogue-heading">Event catalogue</h2>
      <div className="catalogue-grid">
        {catalog.map((c, i) => (
          <div key={`${i}-${c.variant}`} className="catalogue-variant">
            <h3>Variant {c.variant}</h3>
            {c.events.map((e, j) => (
              <details key={`${j}-${e.name}`} className="instructions-details">
                <summary>
                  <code>{e.name}</code>
                </summary>
                <p>{e.description}</p>
                <h4>Payload schema of data</h4>
                <Code label={`Payload schema of ${e.name}, Variant ${c.variant}`} text={JSON.stringify(e.payload)} />
                <h4>Example of data</h4>
                <Code label={`Example of ${e.name}, Variant ${c.variant}`} text={JSON.stringify(e.example)} />
              </details>
            ))}
            {c.retired.length ? (
              <p className="muted">Retired names: {c.retired.map((r) => r.name).join(', ')}.</p>
            ) : null}
          </div>
        ))}
      </div>
    </section>
  );
}
