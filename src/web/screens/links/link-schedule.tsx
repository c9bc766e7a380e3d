// The link editor's "Redirect and schedule": how it redirects, when it is live, when it stops
// (a time or a click limit) and where visitors go after that.
import { SelectField, TextField } from '../../components/fields.tsx';
import { FormSection } from '../../components/form-section.tsx';
import type { LinkFormBinding } from './link-form.ts';

const TIMES = [
  { key: 'startAt', label: 'Starts at', hint: 'Before it, visitors are told the link is not live yet (404).' },
  { key: 'endAt', label: 'Ends at', hint: 'After it, visitors are told the link has ended (410), for good.' },
  {
    key: 'expiresAt',
    label: 'Expires at',
    hint: 'After it, visitors go to the Expired URL below, or are told the link has expired.',
  },
] as const;

export function ScheduleSection({
  binding: { input },
  editable,
  expiredUrlAllowed,
}: {
  binding: LinkFormBinding;
  editable: boolean;
  /** The workspace's plan has the expired-link address. */
  expiredUrlAllowed: boolean;
}) {
  return (
    <FormSection legend="Redirect and schedule" editable={editable}>
      <div className="grid-2">
        <SelectField label="Redirect type" {...input('redirectType')}>
          <option value="TEMPORARY">302 temporary</option>
          <option value="PERMANENT">301 permanent</option>
        </SelectField>
        <TextField
          label="Click limit"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          {...input('clickLimit')}
          hint="The link stops after this many clicks. Empty for no limit."
        />
      </div>
      <div className="grid-3">
        {TIMES.map((t) => (
          <TextField key={t.key} label={t.label} type="datetime-local" {...input(t.key)} hint={t.hint} />
        ))}
      </div>
      <p className="field-hint">Times are in your time zone ({Intl.DateTimeFormat().resolvedOptions().timeZone}).</p>
      <TextField
        label="Expired URL"
        type="url"
        inputMode="url"
        {...input('expiredUrl')}
        disabled={!expiredUrlAllowed}
        hint={
          expiredUrlAllowed
            ? 'Where visitors go once the link has expired or reached its limit.'
            : 'Needs the Growth plan'
        }
        maxLength={2048}
      />
    </FormSection>
  );
}
