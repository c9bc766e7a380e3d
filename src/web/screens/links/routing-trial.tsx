// "Try a visit": a visit described by hand (User-Agent with presets, country, Accept-Language,
// query, client address, time, the split variant a returning visitor holds) sent to the service,
// which answers where the saved routing sends it and why, by the redirect's own function.
import { useMemo, useRef, useState, type FormEvent } from 'react';
import { useTryVisit } from '../../api/routing.ts';
import type { Routing, RoutingTrial, RoutingTrialResult } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { FormAlert } from '../../components/feedback.tsx';
import { Options, SelectField, TextAreaField, TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { textInputs } from '../../components/text-inputs.ts';
import { localInputToIso } from '../../lib/dates.ts';
import { variantName } from './routing-form.ts';

/** Common browsers' User-Agent strings, to try a visit as one of them. */
const PRESETS = [
  {
    value: 'iphone',
    label: 'iPhone (Safari)',
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  },
  {
    value: 'android',
    label: 'Android phone (Chrome)',
    ua: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  },
  {
    value: 'windows',
    label: 'Windows (Chrome)',
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  },
  {
    value: 'mac',
    label: 'Mac (Safari)',
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  },
] as const;

type VisitField = 'userAgent' | 'country' | 'language' | 'query' | 'ip' | 'at' | 'variantId';
const FIELDS: Record<string, VisitField> = {
  userAgent: 'userAgent',
  country: 'country',
  language: 'language',
  query: 'query',
  ip: 'ip',
  at: 'at',
  variantId: 'variantId',
};
const EMPTY: Record<VisitField, string> = {
  userAgent: '',
  country: '',
  language: '',
  query: '',
  ip: '',
  at: '',
  variantId: '',
};

/** The visit as the service reads it: a field left empty is absent from the visit. */
function trialBody(visit: Record<VisitField, string>): RoutingTrial {
  const body: RoutingTrial = {};
  for (const key of Object.keys(EMPTY) as VisitField[]) {
    const value = key === 'userAgent' ? visit[key] : visit[key].trim();
    if (!value) continue;
    if (key === 'at') body.at = localInputToIso(value) ?? value;
    else if (key === 'query') body.query = value.replace(/^\?/, '');
    else body[key] = value;
  }
  return body;
}

export function TryVisit({ ws, linkId, saved }: { ws: string; linkId: string; saved: Routing }) {
  const [visit, setVisit] = useState(EMPTY);
  const [result, setResult] = useState<RoutingTrialResult | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const errors = useFormErrors<VisitField>(FIELDS, formRef);
  const tryIt = useTryVisit(ws, linkId, {
    onSuccess: (answer) => setResult(answer.data),
    onError: (err) => {
      setResult(null);
      errors.show(err);
    },
  });
  const input = textInputs<VisitField>(visit, (key, value) => setVisit((v) => ({ ...v, [key]: value })), errors.fields);
  const preset = PRESETS.find((p) => p.ua === visit.userAgent)?.value ?? '';
  const variants = saved.split?.variants ?? [];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    errors.clear();
    tryIt.mutate(trialBody(visit));
  };

  return (
    <section className="panel try-visit" aria-labelledby="try-heading">
      <h2 id="try-heading">Try a visit</h2>
      <p className="field-hint">
        Runs on the saved routing, as the redirect would: save your changes first to try them. Nothing is recorded.
      </p>
      <form ref={formRef} onSubmit={submit} noValidate aria-labelledby="try-heading">
        <FormAlert message={errors.form} />
        <SelectField
          label="Browser preset"
          value={preset}
          onChange={(e) =>
            setVisit((v) => ({ ...v, userAgent: PRESETS.find((p) => p.value === e.target.value)?.ua ?? '' }))
          }
        >
          <option value="">None: type a User-Agent</option>
          <Options choices={PRESETS} />
        </SelectField>
        <TextAreaField label="User-Agent" {...input('userAgent')} rows={3} maxLength={1024} spellCheck={false} />
        <div className="grid-2">
          <TextField
            label="Country"
            {...input('country')}
            hint="Two letters, as a proxy reports it: FR."
            maxLength={2}
            autoCapitalize="characters"
          />
          <TextField label="Client address" {...input('ip')} hint="IPv4 or IPv6." spellCheck={false} />
        </div>
        <TextField
          label="Accept-Language"
          {...input('language')}
          placeholder="fr-CH, fr;q=0.9, en;q=0.8"
          maxLength={1024}
          spellCheck={false}
        />
        <TextField
          label="Query"
          {...input('query')}
          placeholder="utm_source=news"
          maxLength={2048}
          spellCheck={false}
        />
        <TextField label="Time" type="datetime-local" {...input('at')} hint="Your local time; empty for now." />
        {variants.length ? (
          <SelectField label="Split variant held" {...input('variantId')}>
            <option value="">None: a new visitor</option>
            <Options choices={variants.map((v, i) => ({ value: v.id, label: `Variant ${variantName(i)}` }))} />
          </SelectField>
        ) : null}
        <div className="form-actions">
          <SubmitButton pending={tryIt.isPending}>Try</SubmitButton>
        </div>
      </form>
      {result ? <TrialAnswer result={result} saved={saved} /> : null}
    </section>
  );
}

function TrialAnswer({ result, saved }: { result: RoutingTrialResult; saved: Routing }) {
  const served = useMemo(() => servedBy(result, saved), [result, saved]);
  const visitor = Object.entries(result.visitor).filter(([, v]) => v);
  return (
    <div className="trial-answer" role="status" aria-labelledby="trial-heading">
      <h3 id="trial-heading">Where this visit goes</h3>
      <dl className="facts facts-wide">
        <div>
          <dt>Destination</dt>
          <dd className="url-inline">{result.url ?? 'One of the variants below, drawn by weight'}</dd>
        </div>
        <div>
          <dt>Served by</dt>
          <dd>{served}</dd>
        </div>
        {visitor.length ? (
          <div>
            <dt>The visitor as read</dt>
            <dd>{visitor.map(([k, v]) => `${k}: ${v}`).join(', ')}</dd>
          </div>
        ) : null}
      </dl>
      {result.variants.length ? (
        <ul className="trial-variants">
          {result.variants.map((v) => (
            <li key={v.id}>
              {variantLabel(saved, v.id)} ({v.weight}%): <span className="url-inline">{v.url}</span>
            </li>
          ))}
        </ul>
      ) : null}
      <h4>Why</h4>
      <ol className="trial-reasons">
        {result.reasons.map((r, i) => (
          <li key={i}>{r}</li>
        ))}
      </ol>
    </div>
  );
}

const variantLabel = (saved: Routing, id: string | null) => {
  const i = saved.split?.variants.findIndex((v) => v.id === id) ?? -1;
  return i >= 0 ? `Variant ${variantName(i)}` : 'A variant';
};

function servedBy(result: RoutingTrialResult, saved: Routing): string {
  const { kind, id } = result.served;
  if (kind === 'rule') {
    const i = saved.rules.findIndex((r) => r.id === id);
    return i >= 0 ? `Rule ${i + 1}` : 'A rule';
  }
  if (kind === 'variant') return `${variantLabel(saved, id)} of the split (the visitor's own)`;
  if (kind === 'winner') return `${variantLabel(saved, id)}, the split's winner`;
  if (kind === 'split') return 'The split: a new visitor is given a variant by weight';
  return "The link's own URL (no rule matched and there is no split)";
}
