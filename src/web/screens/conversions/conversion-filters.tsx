// The window and every filter of GET /api/v1/conversions. A choice (from a list, or a link found
// or a QR code by its link) applies at once; typed ones (days, a custom name) apply with Apply. The
// API's refusals show under the field they name.
import { useEffect, useState, type FormEvent } from 'react';
import type { Campaign, ConversionNames } from '../../api/types.ts';
import { ComboField } from '../../components/combo-field.tsx';
import { Options, SelectField, TextField } from '../../components/fields.tsx';
import { LinkField, QrField } from '../../components/link-search.tsx';
import { textInputs } from '../../components/text-inputs.ts';
import { EVENT_TYPES } from '../../lib/conversions.ts';
import { isDay } from '../../lib/dates.ts';
import { linkName, qrName } from './names.ts';
import { hasFilters, MAX_DAYS, paramsOf, PRESETS, presetDays, type ConversionView, type Preset } from './view.ts';

export type FieldErrors = Partial<
  Record<'from' | 'to' | 'eventType' | 'customName' | 'linkId' | 'campaignId' | 'qrCodeId', string>
>;

export function ConversionFilters(props: {
  workspaceId: string;
  view: ConversionView;
  today: string;
  campaigns: Campaign[] | undefined;
  /** Names of the filters' ids, from the last answer. */
  names: ConversionNames | undefined;
  errors: FieldErrors;
  apply: (view: ConversionView) => void;
}) {
  const { workspaceId, view, today, campaigns, names, apply } = props;
  const [draft, setDraft] = useState(view);
  const [problems, setProblems] = useState<FieldErrors>({});
  // The address changed (Only this, Back): the form shows the view it holds.
  const shown = JSON.stringify(paramsOf(view));
  useEffect(() => {
    setDraft(view);
    setProblems({});
  }, [shown]);
  const errors = { ...props.errors, ...problems };
  const set = <K extends keyof ConversionView>(key: K, value: ConversionView[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  /** The typed-in filters, applied with Apply. */
  const input = textInputs<'from' | 'to' | 'customName'>(draft, set, errors);

  /** Applies the draft with one change (a list's choice), or as it is (Apply). */
  const applyDraft = (change: Partial<ConversionView> = {}) => {
    const next = { ...draft, ...change };
    const local: FieldErrors = {};
    if (next.window === 'custom') {
      if (!isDay(next.from)) local.from = 'Enter the first day.';
      if (!isDay(next.to)) local.to = 'Enter the last day.';
    }
    setDraft(next);
    setProblems(local);
    if (Object.keys(local).length === 0) apply(next);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    applyDraft();
  };

  // The filtered link or QR code by its short URL, once the answer names it (an id of no object of
  // this workspace counts nothing, as in the API: say why).
  const idHint = (id: string, kind: 'links' | 'qrCodes', noun: string) => {
    if (!id || !names) return undefined;
    if (!names[kind].some((o) => o.id === id)) return `No ${noun} of this workspace has this id.`;
    return (kind === 'links' ? linkName : qrName)(names, id).shown;
  };
  const linkHint = idHint(view.linkId, 'links', 'link');
  const qrHint = idHint(view.qrCodeId, 'qrCodes', 'QR code');

  return (
    <form className="panel conversion-filters" onSubmit={submit} noValidate aria-label="Conversion filters">
      <div className="filters-grid">
        <SelectField
          label="Window"
          value={draft.window}
          onChange={(e) => {
            const window = e.target.value as Preset;
            // Custom days start as the days on screen.
            const days =
              draft.window === 'custom' ? { from: draft.from, to: draft.to } : presetDays(draft.window, today);
            applyDraft(window === 'custom' ? { window, ...days } : { window });
          }}
        >
          <Options choices={PRESETS} />
        </SelectField>
        {draft.window === 'custom' ? (
          <>
            <TextField label="From" type="date" {...input('from')} max={today} />
            <TextField label="To" type="date" {...input('to')} hint={`UTC days, both counted; at most ${MAX_DAYS}.`} />
          </>
        ) : null}
        <SelectField
          label="Event type"
          value={draft.eventType}
          error={errors.eventType}
          onChange={(e) =>
            applyDraft({
              eventType: e.target.value as ConversionView['eventType'],
              customName: e.target.value === 'custom' ? draft.customName : '',
            })
          }
        >
          <option value="">Every type</option>
          <Options choices={EVENT_TYPES} />
        </SelectField>
        {draft.eventType === 'custom' ? (
          <TextField
            label="Custom event name"
            {...input('customName')}
            maxLength={40}
            hint="Empty for every custom event."
            spellCheck={false}
          />
        ) : null}
        <ComboField
          label="Campaign"
          noun="campaign"
          everything="Every campaign"
          choices={(campaigns ?? []).map((c) => ({ value: c.id, label: c.name }))}
          value={draft.campaignId}
          error={errors.campaignId}
          onChange={(campaignId) => applyDraft({ campaignId })}
        />
      </div>
      {/* A link is chosen by searching, and applies at once, as the lists' choices do. */}
      <LinkField
        workspaceId={workspaceId}
        label="Link"
        name="the link filter"
        linkId={draft.linkId}
        onChange={(linkId) => applyDraft({ linkId })}
        error={errors.linkId ?? (view.linkId && linkHint?.startsWith('No ') ? linkHint : undefined)}
      />
      <QrField
        workspaceId={workspaceId}
        label="QR code of a link"
        name="the QR code filter"
        qrCodeId={draft.qrCodeId}
        onChange={(qrCodeId) => applyDraft({ qrCodeId })}
        named={qrHint && !qrHint.startsWith('No ') ? qrHint : undefined}
        error={errors.qrCodeId ?? (view.qrCodeId && qrHint?.startsWith('No ') ? qrHint : undefined)}
      />
      <div className="button-row filters-actions">
        <button type="submit" className="button button-primary">
          Apply
        </button>
        {hasFilters(view) ? (
          <button
            type="button"
            className="button"
            onClick={() => applyDraft({ eventType: '', customName: '', linkId: '', campaignId: '', qrCodeId: '' })}
          >
            Clear filters
          </button>
        ) : null}
      </div>
    </form>
  );
}
