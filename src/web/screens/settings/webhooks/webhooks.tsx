// Settings › Webhooks: both variants' subscriptions side by side with their endpoint health, and
// for OWNER and ADMIN making, changing (Variant A), deleting, re-enabling, "Send test event" and
// "Replay failed since…" (Variant B); the event catalogue; the delivery log (delivery-log.tsx).
// Every action here has a `shortlink webhook` command (docs/configuration.md).
import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { useWorkspace } from '../../../api/queries.ts';
import { can, useMembership } from '../../../api/session.ts';
import { ConfirmedActionButton, SubmitButton } from '../../../components/buttons.tsx';
import { useConfirm } from '../../../components/confirm.tsx';
import { CopyButton } from '../../../components/copy-button.tsx';
import { ACTIONS, DataTable, ListState } from '../../../components/data-table.tsx';
import { EmptyState, FormAlert, StatusNotice } from '../../../components/feedback.tsx';
import { CheckboxField, SelectField, TextField } from '../../../components/fields.tsx';
import { useFormErrors } from '../../../components/form-errors.ts';
import { When } from '../../../components/when.tsx';
import { formatDateTime, localInputToIso } from '../../../lib/dates.ts';
import { SettingsFrame } from '../settings-frame.tsx';
import { refreshWebhooks, webhookApi, webhookKeys, type WebhookCatalog, type WebhookSubscription, type WebhookVariant } from './api.ts';
import { AttemptView, Catalogue, DeliveryLog } from './delivery-log.tsx';

type Panel = { id: string; mode: 'edit' | 'test' | 'replay' } | null;

export default function Webhooks() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const workspace = useWorkspace(ws);
  const included = workspace.data?.features.webhooks ?? true;
  const mayAct = can.administer(role);
  const list = useQuery({ queryKey: webhookKeys.subscriptions(ws), queryFn: () => webhookApi.subscriptions(ws), enabled: included });
  const catalog = useQuery({ queryKey: webhookKeys.catalog(ws), queryFn: () => webhookApi.catalog(ws), enabled: included });
  const [panel, setPanel] = useState<Panel>(null);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null);
  const [ask, dialog] = useConfirm();

  const done = (text: string) => {
    setNotice({ ok: true, text });
    void refreshWebhooks(ws);
  };
  const failed = (err: Error) => setNotice({ ok: false, text: err.message });
  const remove = useMutation({
    mutationFn: (s: WebhookSubscription) => webhookApi.remove(ws, s.id),
    onSuccess: (_v, s) => {
      setPanel(null);
      done(`Subscription to ${s.url} deleted. Nothing more is delivered to it.`);
    },
    onError: failed,
  });
  const enable = useMutation({
    mutationFn: (s: WebhookSubscription) => webhookApi.enable(ws, s.id),
    onSuccess: (_v, s) => done(`Subscription to ${s.url} enabled again. Deliveries resume; five new days count before failures disable it.`),
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
      {notice ? notice.ok ? <StatusNotice>{notice.text}</StatusNotice> : <FormAlert message={notice.text} /> : null}
      {mayAct && included && catalog.data ? <CreateSubscription workspaceId={ws} catalog={catalog.data} /> : null}

      <section className="section" aria-labelledby="subscriptions-heading">
        <h2 id="subscriptions-heading">Subscriptions</h2>
        <p className="muted">
          Variant A subscriptions are delivered as <code>POST /api/webhooks</code> describes, Variant B as <code>POST /api/v1/webhooks</code>. An endpoint whose
          deliveries all fail for 5 days is disabled by Shortlink until someone re-enables it.
        </p>
        {!included ? null : (
        <ListState
          read={list}
          loading="Loading subscriptions…"
          what="the subscriptions"
          empty={<EmptyState title="No webhook subscriptions yet">Subscriptions post signed events to your HTTPS endpoints.</EmptyState>}
        >
          {(rows) => (
          <DataTable
            caption="Webhook subscriptions"
            captionId="subscriptions-caption"
            cards
            headers={['Endpoint', 'Variant', 'Events', 'Health', 'Created', mayAct && ACTIONS]}
          >
                {rows.map((s) => (
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
                          <button type="button" className="button button-small" aria-label={`Send test event to ${s.url}`} onClick={() => setPanel({ id: s.id, mode: 'test' })}>
                            Send test event
                          </button>
                          {s.variant === 'A' ? (
                            <button type="button" className="button button-small" aria-label={`Edit ${s.url}`} onClick={() => setPanel({ id: s.id, mode: 'edit' })}>
                              Edit
                            </button>
                          ) : (
                            <button type="button" className="button button-small" aria-label={`Replay failed since… to ${s.url}`} onClick={() => setPanel({ id: s.id, mode: 'replay' })}>
                              Replay failed since…
                            </button>
                          )}
                          {!s.enabled ? (
                            <button type="button" className="button button-small" aria-label={`Re-enable ${s.url}`} disabled={enable.isPending} onClick={() => enable.mutate(s)}>
                              Re-enable
                            </button>
                          ) : null}
                          <ConfirmedActionButton
                            label="Delete"
                            name={`Delete subscription to ${s.url}`}
                            disabled={remove.isPending}
                            ask={ask}
                            question={{ title: `Delete the subscription to ${s.url}?`, body: 'Nothing more is delivered to it. Its deliveries stay in the log.', confirmLabel: 'Delete' }}
                            onConfirmed={() => remove.mutate(s)}
                          />
                        </div>
                      </td>
                    ) : null}
                  </tr>
                ))}
          </DataTable>
          )}
        </ListState>
        )}
      </section>

      {selected && panel && catalog.data ? (
        panel.mode === 'edit' ? (
          <EditSubscription key={selected.id} workspaceId={ws} subscription={selected} catalog={catalog.data} close={() => setPanel(null)} done={done} />
        ) : panel.mode === 'test' ? (
          <SendTestEvent key={selected.id} workspaceId={ws} subscription={selected} catalog={catalog.data} close={() => setPanel(null)} />
        ) : (
          <ReplaySince key={selected.id} workspaceId={ws} subscription={selected} close={() => setPanel(null)} done={done} />
        )
      ) : null}

      {included ? <DeliveryLog workspaceId={ws} subscriptions={list.data ?? []} catalog={catalog.data ?? []} mayAct={mayAct} /> : null}
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

const eventsOf = (catalog: WebhookCatalog, variant: WebhookVariant) => catalog.find((c) => c.variant === variant)?.events ?? [];

type CreateField = 'variant' | 'url' | 'events' | 'secret';
const CREATE_FIELDS: Record<string, CreateField> = { variant: 'variant', url: 'url', events: 'events', secret: 'secret' };

function EventChoices({ name, catalog, variant, chosen, setChosen, error }: {
  name: string;
  catalog: WebhookCatalog;
  variant: WebhookVariant;
  chosen: string[];
  setChosen: (f: (prev: string[]) => string[]) => void;
  error?: string;
}) {
  const errorId = useId();
  return (
    <fieldset aria-describedby={error ? errorId : undefined}>
      <legend>Events</legend>
      <div className="check-grid">
        {eventsOf(catalog, variant).map((e, i) => (
          <div className="check" key={`${i}-${e.name}`}>
            <input
              type="checkbox"
              id={`${name}-${variant}-${i}`}
              checked={chosen.includes(e.name)}
              onChange={(ev) => setChosen((prev) => (ev.target.checked ? [...prev, e.name] : prev.filter((x) => x !== e.name)))}
            />
            <label htmlFor={`${name}-${variant}-${i}`} className="mono">
              {e.name}
            </label>
          </div>
        ))}
      </div>
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

function CreateSubscription({ workspaceId, catalog }: { workspaceId: string; catalog: WebhookCatalog }) {
  const offered = [...new Set(catalog.map((c) => c.variant))];
  const [variant, setVariant] = useState<WebhookVariant>(offered[0] ?? 'A');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [secret, setSecret] = useState('');
  const [created, setCreated] = useState<{ secret: string; url: string } | null>(null);
  const [made, setMade] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<CreateField>(CREATE_FIELDS, formRef);
  const secretId = useId();

  const create = useMutation({
    mutationFn: () => webhookApi.create(workspaceId, { variant, url: url.trim(), events, ...(variant === 'B' ? { secret } : {}) }),
    onSuccess: (answer) => {
      if (answer.secret) setCreated({ secret: answer.secret, url: answer.data.url });
      setMade(`Subscription to ${answer.data.url} created (Variant ${answer.data.variant}).`);
      setUrl('');
      setEvents([]);
      setSecret('');
      void refreshWebhooks(workspaceId);
    },
    onError: (err) => errors.show(err),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMade(null);
    const ok = errors.check({
      url: url.trim().startsWith('https://') ? undefined : 'Enter an https:// URL.',
      events: events.length ? undefined : 'Choose at least one event.',
      secret: variant === 'B' && [...secret].length < 16 ? 'The secret must be at least 16 characters.' : undefined,
    });
    if (ok) create.mutate();
  };

  return (
    <section className="panel" aria-labelledby="create-subscription-heading">
      <h2 id="create-subscription-heading">New subscription</h2>
      {created ? (
        <div className="secret">
          <TextField id={secretId} label="Signing secret" value={created.secret} readOnly onFocus={(e) => e.target.select()} />
          <div className="button-row">
            <CopyButton text={created.secret} label="Copy secret" visible="Copy secret" />
            <button type="button" className="button button-small button-quiet" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
          <p className="notice notice-warning">
            <strong>This secret is shown once.</strong> Deliveries to {created.url} are signed with it; it is stored encrypted and never shown again.
          </p>
        </div>
      ) : null}
      {made ? <StatusNotice>{made}</StatusNotice> : null}
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <SelectField
          label="Variant"
          value={variant}
          onChange={(e) => {
            setVariant(e.target.value as WebhookVariant);
            setEvents([]);
          }}
          error={errors.fields.variant}
          hint="A: Shortlink generates the signing secret and shows it once. B: you choose the secret."
          className="field-narrow"
        >
          {offered.map((v) => (
            <option key={v} value={v}>
              Variant {v}
            </option>
          ))}
        </SelectField>
        <TextField label="Endpoint URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} error={errors.fields.url} placeholder="https://example.com/hooks" />
        <EventChoices name="new" catalog={catalog} variant={variant} chosen={events} setChosen={setEvents} error={errors.fields.events} />
        {variant === 'B' ? (
          <TextField
            label="Secret"
            type="password"
            autoComplete="new-password"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
            error={errors.fields.secret}
            hint="At least 16 characters. Shortlink stores it encrypted and never shows it."
          />
        ) : null}
        <div>
          <SubmitButton pending={create.isPending}>Create subscription</SubmitButton>
        </div>
      </form>
    </section>
  );
}

type EditField = 'url' | 'events';
const EDIT_FIELDS: Record<string, EditField> = { url: 'url', events: 'events' };

function EditSubscription({ workspaceId, subscription: s, catalog, close, done }: {
  workspaceId: string;
  subscription: WebhookSubscription;
  catalog: WebhookCatalog;
  close: () => void;
  done: (text: string) => void;
}) {
  const [url, setUrl] = useState(s.url);
  const [events, setEvents] = useState<string[]>(s.events);
  const [enabled, setEnabled] = useState(s.enabled);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<EditField>(EDIT_FIELDS, formRef);
  const save = useMutation({
    mutationFn: () => webhookApi.update(workspaceId, s.id, { url: url.trim(), events, enabled }),
    onSuccess: (answer) => {
      close();
      done(`Subscription to ${answer.data.url} saved.`);
    },
    onError: (err) => errors.show(err),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ events: events.length ? undefined : 'Choose at least one event.' })) save.mutate();
  };
  return (
    <section className="panel" aria-labelledby="edit-subscription-heading">
      <h2 id="edit-subscription-heading">Edit {s.url}</h2>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <TextField label="Endpoint URL" type="url" value={url} onChange={(e) => setUrl(e.target.value)} error={errors.fields.url} />
        <EventChoices name="edit" catalog={catalog} variant="A" chosen={events} setChosen={setEvents} error={errors.fields.events} />
        <CheckboxField label="Enabled" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} hint="Turning a subscription on clears a disable by Shortlink." />
        <div className="button-row">
          <SubmitButton pending={save.isPending}>Save subscription</SubmitButton>
          <button type="button" className="button button-quiet" onClick={close}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

function SendTestEvent({ workspaceId, subscription: s, catalog, close }: {
  workspaceId: string;
  subscription: WebhookSubscription;
  catalog: WebhookCatalog;
  close: () => void;
}) {
  const names = eventsOf(catalog, s.variant).map((e) => e.name);
  const [event, setEvent] = useState(s.events[0] ?? names[0] ?? '');
  const [error, setError] = useState<string | null>(null);
  const send = useMutation({
    mutationFn: () => webhookApi.test(workspaceId, s.id, event),
    onSuccess: () => {
      setError(null);
      void refreshWebhooks(workspaceId);
    },
    onError: (err) => setError(err.message),
  });
  const result = send.data?.data;
  return (
    <section className="panel" aria-labelledby="test-event-heading">
      <h2 id="test-event-heading">Send test event to {s.url}</h2>
      <p className="muted">
        A signed sample of the event, sent now, in the variant's own envelope with the event's documented example as data: its ids name nothing real
        {s.variant === 'B' ? <> and its event id begins with <code>evt_test_</code></> : <> (its <code>workspaceId</code> is the example's, never yours)</>}. It also carries the
        header <code>X-Service-Test: true</code>; it is logged as a test and never retried.
      </p>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          send.mutate();
        }}
      >
        <FormAlert message={error} />
        <SelectField label="Event" value={event} onChange={(e) => setEvent(e.target.value)} className="field-narrow">
          {[...new Set(names)].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </SelectField>
        <div className="button-row">
          <SubmitButton pending={send.isPending}>Send test event</SubmitButton>
          <button type="button" className="button button-quiet" onClick={close}>
            Close
          </button>
        </div>
      </form>
      {result ? (
        <div className="stack" role="region" aria-label="Test event result">
          {result.status === 'DELIVERED' ? (
            <StatusNotice>Delivered: the endpoint answered {result.attempt.statusCode}.</StatusNotice>
          ) : (
            <p className="notice notice-error">
              Failed: {result.attempt.statusCode !== null ? `the endpoint answered ${result.attempt.statusCode}` : result.attempt.error}.
            </p>
          )}
          <AttemptView attempt={result.attempt} />
        </div>
      ) : null}
    </section>
  );
}

function ReplaySince({ workspaceId, subscription: s, close, done }: {
  workspaceId: string;
  subscription: WebhookSubscription;
  close: () => void;
  done: (text: string) => void;
}) {
  const [since, setSince] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'since'>({ since: 'since' }, formRef);
  const replay = useMutation({
    mutationFn: () => webhookApi.replaySince(workspaceId, s.id, localInputToIso(since)!),
    onSuccess: (answer) => {
      close();
      const n = answer.data.replayed.length;
      done(n === 0 ? `No failed deliveries to ${s.url} since then.` : `${n} failed ${n === 1 ? 'delivery' : 'deliveries'} to ${s.url} sent again, each with its own id and body.`);
    },
    onError: (err) => errors.show(err),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ since: localInputToIso(since) ? undefined : 'Choose a date and time.' })) replay.mutate();
  };
  return (
    <section className="panel" aria-labelledby="replay-since-heading">
      <h2 id="replay-since-heading">Replay failed deliveries to {s.url}</h2>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <TextField
          label="Failed since"
          type="datetime-local"
          value={since}
          onChange={(e) => setSince(e.target.value)}
          error={errors.fields.since}
          hint="Every FAILED delivery made since this time is sent again, with the same id and body."
          className="field-narrow"
        />
        <div className="button-row">
          <SubmitButton pending={replay.isPending}>Replay failed deliveries</SubmitButton>
          <button type="button" className="button button-quiet" onClick={close}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

