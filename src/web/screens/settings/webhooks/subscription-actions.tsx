// Settings › Webhooks: a subscription's "Send test event" and "Replay failed since…" (Variant B).
import { useRef, useState, type FormEvent } from 'react';
import { eventsOf, useReplayFailedSince, useSendTestEvent } from '../../../api/webhooks.ts';
import { FormAlert, StatusNotice } from '../../../components/feedback.tsx';
import { SelectField, TextField } from '../../../components/fields.tsx';
import { useFormErrors } from '../../../components/form-errors.ts';
import { SubmitOrClose } from '../../../components/submit-or-close.tsx';
import { localInputToIso } from '../../../lib/dates.ts';
import { AttemptView } from './delivery-log.tsx';
import type { SubscriptionPanelProps } from './subscription-forms.tsx';
import { boundText } from '../../../components/text-inputs.ts';

export function SendTestEvent({ workspaceId, subscription: s, catalog, close }: SubscriptionPanelProps) {
  const names = eventsOf(catalog, s.variant).map((e) => e.name);
  const [event, setEvent] = useState(s.events[0] ?? names[0] ?? '');
  const [error, setError] = useState<string | null>(null);
  const send = useSendTestEvent(workspaceId, s.id, {
    onSuccess: () => setError(null),
    onError: (err) => setError(err.message),
  });
  const result = send.data?.data;
  return (
    <section className="panel" aria-labelledby="test-event-heading">
      <h2 id="test-event-heading">Send test event to {s.url}</h2>
      <p className="muted">
        A signed sample of the event, sent now, in the variant's own envelope with the event's documented example as
        data: its ids name nothing real
        {s.variant === 'B' ? (
          <>
            {' '}
            and its event id begins with <code>evt_test_</code>
          </>
        ) : (
          <>
            {' '}
            (its <code>workspaceId</code> is the example's, never yours)
          </>
        )}
        . It also carries the header <code>X-Service-Test: true</code>; it is logged as a test and never retried.
      </p>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          send.mutate(event);
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
        <SubmitOrClose pending={send.isPending} close={close} closeLabel="Close">
          Send test event
        </SubmitOrClose>
      </form>
      {result ? (
        <div className="stack" role="region" aria-label="Test event result">
          {result.status === 'DELIVERED' ? (
            <StatusNotice>Delivered: the endpoint answered {result.attempt.statusCode}.</StatusNotice>
          ) : (
            <p className="notice notice-error">
              Failed:{' '}
              {result.attempt.statusCode !== null
                ? `the endpoint answered ${result.attempt.statusCode}`
                : result.attempt.error}
              .
            </p>
          )}
          <AttemptView attempt={result.attempt} />
        </div>
      ) : null}
    </section>
  );
}

export function ReplaySince({ workspaceId, subscription: s, close, done }: SubscriptionPanelProps) {
  const [since, setSince] = useState('');
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<'since'>({ since: 'since' }, formRef);
  const replay = useReplayFailedSince(workspaceId, s.id, {
    onSuccess: (answer) => {
      close();
      const n = answer.data.replayed.length;
      done(
        n === 0
          ? `No failed deliveries to ${s.url} since then.`
          : `${n} failed ${n === 1 ? 'delivery' : 'deliveries'} to ${s.url} sent again, each with its own id and body.`,
      );
    },
    onError: (err) => errors.show(err),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (errors.check({ since: localInputToIso(since) ? undefined : 'Choose a date and time.' }))
      replay.mutate(localInputToIso(since)!);
  };
  return (
    <section className="panel" aria-labelledby="replay-since-heading">
      <h2 id="replay-since-heading">Replay failed deliveries to {s.url}</h2>
      <form ref={formRef} onSubmit={submit} noValidate className="stack">
        <FormAlert message={errors.form} />
        <TextField
          label="Failed since"
          type="datetime-local"
          {...boundText(since, setSince)}
          error={errors.fields.since}
          hint="Every FAILED delivery made since this time is sent again, with the same id and body."
          className="field-narrow"
        />
        <SubmitOrClose pending={replay.isPending} close={close}>
          Replay failed deliveries
        </SubmitOrClose>
      </form>
    </section>
  );
}
