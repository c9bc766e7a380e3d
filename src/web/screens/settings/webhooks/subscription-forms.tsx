// Settings › Webhooks: making a subscription (either variant) and changing one (Variant A).
import { useId, useRef, useState, type FormEvent } from 'react';
import {
  eventsOf,
  useCreateSubscription,
  useUpdateSubscription,
  type WebhookCatalog,
  type WebhookSubscription,
  type WebhookVariant,
} from '../../../api/webhooks.ts';
import { SubmitButton } from '../../../components/buttons.tsx';
import { FormAlert, StatusNotice } from '../../../components/feedback.tsx';
import { CheckboxField, SelectField, TextField } from '../../../components/fields.tsx';
import { useFormErrors } from '../../../components/form-errors.ts';
import { ShownOnce } from '../../../components/shown-once.tsx';
import { SubmitOrClose } from '../../../components/submit-or-close.tsx';
import { boundText } from '../../../components/text-inputs.ts';

type CreateField = 'variant' | 'url' | 'events' | 'secret';
const CREATE_FIELDS: Record<string, CreateField> = {
  variant: 'variant',
  url: 'url',
  events: 'events',
  secret: 'secret',
};

function EventChoices({
  name,
  catalog,
  variant,
  chosen,
  setChosen,
  error,
}: {
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
              onChange={(ev) =>
                setChosen((prev) => (ev.target.checked ? [...prev, e.name] : prev.filter((x) => x !== e.name)))
              }
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

/**
 * What each variant is for and which events it carries, one sentence each. Must stay true to the
 * catalogues in asyncapi/variant-a.yaml and variant-b.yaml (their channels' messages) and to the
 * secret rules there: A's secret is made by the service and shown once, B's chosen by the caller.
 */
const VARIANT_PURPOSES: Array<{ variant: WebhookVariant; what: string }> = [
  {
    variant: 'A',
    what:
      'is for acting on changes in the workspace: links created, updated or deleted, pages published, ' +
      'reports shared, conversions, traffic spikes and unusual countries, and verified domains; ' +
      'Shortlink makes its signing secret and shows it once.',
  },
  {
    variant: 'B',
    what:
      'is for following traffic as it happens: links created, updated, deleted and clicked, pages ' +
      'published and viewed, QR codes scanned, and verified domains, each delivery with an id to ' +
      'deduplicate by; you choose its signing secret.',
  },
];

/** The endpoint a subscription delivers to: an https:// URL, checked by the form and the API. */
function EndpointUrl(props: { url: string; setUrl: (url: string) => void; error?: string; placeholder?: string }) {
  return (
    <TextField
      label="Endpoint URL"
      type="url"
      value={props.url}
      onChange={(e) => props.setUrl(e.target.value)}
      error={props.error}
      placeholder={props.placeholder}
    />
  );
}

export function CreateSubscription({ workspaceId, catalog }: { workspaceId: string; catalog: WebhookCatalog }) {
  const offered = [...new Set(catalog.map((c) => c.variant))];
  const [variant, setVariant] = useState<WebhookVariant>(offered[0] ?? 'A');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [secret, setSecret] = useState('');
  const [created, setCreated] = useState<{ secret: string; url: string } | null>(null);
  const [made, setMade] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<CreateField>(CREATE_FIELDS, formRef);

  const create = useCreateSubscription(workspaceId, {
    onSuccess: (answer) => {
      if (answer.secret) setCreated({ secret: answer.secret, url: answer.data.url });
      setMade(`Subscription to ${answer.data.url} created (Variant ${answer.data.variant}).`);
      setUrl('');
      setEvents([]);
      setSecret('');
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
    if (ok) create.mutate({ variant, url: url.trim(), events, ...(variant === 'B' ? { secret } : {}) });
  };

  return (
    <section className="panel" aria-labelledby="create-subscription-heading">
      <h2 id="create-subscription-heading">New subscription</h2>
      {created ? (
        <ShownOnce
          label="Signing secret"
          value={created.secret}
          copyLabel="Copy secret"
          onDone={() => setCreated(null)}
        >
          <strong>This secret is shown once.</strong> Deliveries to {created.url} are signed with it; it is stored
          encrypted and never shown again.
        </ShownOnce>
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
          hint={VARIANT_PURPOSES.map((v) => (
            <span key={v.variant} className="variant-purpose">
              <strong>Variant {v.variant}</strong> {v.what}
            </span>
          ))}
          className="field-variant"
        >
          {offered.map((v) => (
            <option key={v} value={v}>
              Variant {v}
            </option>
          ))}
        </SelectField>
        <EndpointUrl url={url} setUrl={setUrl} error={errors.fields.url} placeholder="https://example.com/hooks" />
        <EventChoices
          name="new"
          catalog={catalog}
          variant={variant}
          chosen={events}
          setChosen={setEvents}
          error={errors.fields.events}
        />
        {variant === 'B' ? (
          <TextField
            label="Secret"
            type="password"
            autoComplete="new-password"
            {...boundText(secret, setSecret)}
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

/** What a panel opened for one subscription gets (edit, send a test, replay): each uses what it needs. */
export interface SubscriptionPanelProps {
  workspaceId: string;
  subscription: WebhookSubscription;
  catalog: WebhookCatalog;
  close: () => void;
  /** Says what the panel did, on the screen's notice. */
  done: (text: string) => void;
}

type EditField = 'url' | 'events';
const EDIT_FIELDS: Record<string, EditField> = { url: 'url', events: 'events' };

export function EditSubscription({ workspaceId, subscription: s, catalog, close, done }: SubscriptionPanelProps) {
  const [url, setUrl] = useState(s.url);
  const [events, setEvents] = useState<string[]>(s.events);
  const [enabled, setEnabled] = useState(s.enabled);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<EditField>(EDIT_FIELDS, formRef);
  const save = useUpdateSubscription(workspaceId, s.id, {
    onSuccess: (answer) => {
      close();
      done(`Subscription to ${answer.data.url} saved.`);
    },
    onError: (err) => errors.show(err),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ events: events.length ? undefined : 'Choose at least one event.' }))
      save.mutate({ url: url.trim(), events, enabled });
  };
  return (
    <section className="panel" aria-labelledby="edit-subscription-heading">
      <h2 id="edit-subscription-heading">Edit {s.url}</h2>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <EndpointUrl url={url} setUrl={setUrl} error={errors.fields.url} />
        <EventChoices
          name="edit"
          catalog={catalog}
          variant="A"
          chosen={events}
          setChosen={setEvents}
          error={errors.fields.events}
        />
        <CheckboxField
          label="Enabled"
          checked={enabled}
          onChange={(e) => setEnabled(e.target.checked)}
          hint="Turning a subscription on clears a disable by Shortlink."
        />
        <SubmitOrClose pending={save.isPending} close={close}>
          Save subscription
        </SubmitOrClose>
      </form>
    </section>
  );
}
