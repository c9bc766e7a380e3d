// Settings › Webhooks: both variants' subscriptions side by side with their endpoint health, and
// for OWNER and ADMIN making, changing (Variant A), deleting, re-enabling, "Send test event" and
// "Replay failed since…" (Variant B); the event catalogue; the delivery log (delivery-log.tsx).
// Every action here has a `shortlink webhook` command (docs/configuration.md).
import { useState } from 'react';
import { useParams } from 'wouter';
import { useWorkspace } from '../../../api/queries.ts';
import { can, useMembership } from '../../../api/session.ts';
import {
  useDeleteSubscription,
  useEnableSubscription,
  useWebhookCatalog,
  useWebhookSubscriptions,
  type WebhookSubscription,
} from '../../../api/webhooks.ts';
import { useConfirm } from '../../../components/confirm.tsx';
import { ConfirmedWriteButton, RowButton } from '../../../components/row-buttons.tsx';
import { ACTIONS } from '../../../components/data-table.tsx';
import { EmptyState } from '../../../components/feedback.tsx';
import { OutcomeNotice, useOutcome } from '../../../components/outcome-notice.tsx';
import { TableSection } from '../../../components/table-section.tsx';
import { When } from '../../../components/when.tsx';
import { formatDateTime } from '../../../lib/dates.ts';
import { SettingsFrame } from '../settings-frame.tsx';
import { Catalogue, DeliveryLog } from './delivery-log.tsx';
import { ReplaySince, SendTestEvent } from './subscription-actions.tsx';
import { CreateSubscription, EditSubscription, type SubscriptionPanelProps } from './subscription-forms.tsx';

/** The panel a row's button opens under the list, for that row's subscription. */
const PANELS = { edit: EditSubscription, test: SendTestEvent, replay: ReplaySince };
type Panel = { id: string; mode: keyof typeof PANELS } | null;

function PanelOf({ mode, ...props }: SubscriptionPanelProps & { mode: keyof typeof PANELS }) {
  const Opened = PANELS[mode];
  return <Opened {...props} />;
}

export default function Webhooks() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const workspace = useWorkspace(ws);
  const included = workspace.data?.features.webhooks ?? true;
  const mayAct = can.administer(role);
  const list = useWebhookSubscriptions(ws, included);
  const catalog = useWebhookCatalog(ws, included);
  const [panel, setPanel] = useState<Panel>(null);
  const notice = useOutcome();
  const [ask, dialog] = useConfirm();

  // Every change's hook refreshes the screen; this only says what it did.
  const { done } = notice;
  const failed = (err: Error) => notice.failed(err.message);
  const remove = useDeleteSubscription<WebhookSubscription>(ws, {
    onSuccess: (_v, s) => {
      setPanel(null);
      done(`Subscription to ${s.url} deleted. Nothing more is delivered to it.`);
    },
    onError: failed,
  });
  const enable = useEnableSubscription<WebhookSubscription>(ws, {
    onSuccess: (_v, s) =>
      done(
        `Subscription to ${s.url} enabled again. Deliveries resume; five new days count before failures disable it.`,
      ),
    onError: failed,
  });

  const selected = panel ? list.data?.find((s) => s.id === panel.id) : undefined;

  return (
    <SettingsFrame workspaceId={ws} title="Webhooks">
      {!included ? (
        <p className="notice notice-info">
          <strong>Webhooks need the Growth plan.</strong> This workspace's plan does not include webhooks.
        </p>
      ) : null}
      <OutcomeNotice outcome={notice.outcome} />
      {mayAct && included && catalog.data ? <CreateSubscription workspaceId={ws} catalog={catalog.data} /> : null}

      <TableSection
        id="subscriptions"
        heading="Subscriptions"
        intro={
          <p className="muted">
            Variant A subscriptions are delivered as <code>POST /api/webhooks</code> describes, Variant B as{' '}
            <code>POST /api/v1/webhooks</code>. An endpoint whose deliveries all fail for 5 days is disabled by
            Shortlink until someone re-enables it.
          </p>
        }
        noun="subscriptions"
        read={list}
        listed={included}
        empty={
          <EmptyState title="No webhook subscriptions yet">
            Subscriptions post signed events to your HTTPS endpoints.
          </EmptyState>
        }
        caption="Webhook subscriptions"
        cards
        headers={['Endpoint', 'Variant', 'Events', 'Health', 'Created', mayAct && ACTIONS]}
      >
        {(s) => (
          <tr key={s.id} className={s.enabled ? undefined : 'is-dim'}>
            <td className="cell-url" data-label="Endpoint">
              <code>{s.url}</code>
            </td>
            <td data-label="Variant">{s.variant}</td>
            <td data-label="Events">
              <span className="scope-list">
                {s.events.map((e, i) => (
                  <code key={`${i}-${e}`} className="scope">
                    {e}
                  </code>
                ))}
              </span>
            </td>
            <td data-label="Health">
              <Health subscription={s} />
            </td>
            <td className="nowrap" data-label="Created">
              <When iso={s.createdAt} />
            </td>
            {mayAct ? (
              <td>
                <div className="row-actions">
                  <RowButton
                    label="Send test event"
                    name={`Send test event to ${s.url}`}
                    onClick={() => setPanel({ id: s.id, mode: 'test' })}
                  />
                  {s.variant === 'A' ? (
                    <RowButton
                      label="Edit"
                      name={`Edit ${s.url}`}
                      onClick={() => setPanel({ id: s.id, mode: 'edit' })}
                    />
                  ) : (
                    <RowButton
                      label="Replay failed since…"
                      name={`Replay failed since… to ${s.url}`}
                      onClick={() => setPanel({ id: s.id, mode: 'replay' })}
                    />
                  )}
                  {!s.enabled ? (
                    <RowButton
                      label="Re-enable"
                      name={`Re-enable ${s.url}`}
                      disabled={enable.isPending}
                      onClick={() => enable.mutate(s)}
                    />
                  ) : null}
                  <ConfirmedWriteButton
                    label="Delete"
                    name={`Delete subscription to ${s.url}`}
                    title={`Delete the subscription to ${s.url}?`}
                    ask={ask}
                    write={remove}
                    row={s}
                  >
                    Nothing more is delivered to it. Its deliveries stay in the log.
                  </ConfirmedWriteButton>
                </div>
              </td>
            ) : null}
          </tr>
        )}
      </TableSection>

      {selected && panel && catalog.data ? (
        <PanelOf
          mode={panel.mode}
          key={selected.id}
          workspaceId={ws}
          subscription={selected}
          catalog={catalog.data}
          close={() => setPanel(null)}
          done={done}
        />
      ) : null}

      {included ? (
        <DeliveryLog workspaceId={ws} subscriptions={list.data ?? []} catalog={catalog.data ?? []} mayAct={mayAct} />
      ) : null}
      {included && catalog.data ? <Catalogue catalog={catalog.data} /> : null}
      {dialog}
    </SettingsFrame>
  );
}

function Health({ subscription: s }: { subscription: WebhookSubscription }) {
  if (s.disabledAt) {
    return (
      <div className="health">
        <span className="badge badge-error">Disabled by Shortlink</span>
        <span>
          On {formatDateTime(s.disabledAt)}: {s.disabledReason}
        </span>
      </div>
    );
  }
  if (!s.enabled) return <span className="badge badge-off">Off</span>;
  return (
    <div className="health">
      <span className="badge badge-ok">Enabled</span>
      {s.failingSince ? <span className="muted">Failing since {formatDateTime(s.failingSince)}</span> : null}
    </div>
  );
}
