// "Share" on the Conversions screen, a goal's report, a link's and a bio page's analytics: saves
// the view on the screen as a report (its window and what it reads), with a title, a visibility
// and an optional password, in a modal dialog; then shows its address with a copy button when it
// is shared.
import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { useCreateReport } from '../../api/reports.ts';
import type { Report, ReportOfKind, ReportVisibility } from '../../api/types.ts';
import { SubmitButton } from '../../components/buttons.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { FormAlert } from '../../components/feedback.tsx';
import { Options, SelectField, TextField } from '../../components/fields.tsx';
import { useFormErrors } from '../../components/form-errors.ts';
import { useModalDialog } from '../../components/modal-dialog.ts';
import { wsPath } from '../links/paths.ts';
import { KIND_LABELS, VISIBILITIES, windowPhrase } from './report-text.ts';
import { boundText } from '../../components/text-inputs.ts';

type Field = 'title' | 'visibility' | 'password';
const FIELDS: Record<string, Field> = { title: 'title', visibility: 'visibility', password: 'password' };

/** The visibilities in the order the dialog offers them: its default, Unlisted, first. */
const SHARE_CHOICES = ['UNLISTED', 'PRIVATE', 'PUBLIC'].map((v) => VISIBILITIES.find((x) => x.value === v)!);

export function ShareButton(props: { workspaceId: string; report: ReportOfKind; defaultTitle: string; what: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button button-small" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Share
      </button>
      {open ? <ShareDialog {...props} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function ShareDialog({
  workspaceId: ws,
  report,
  defaultTitle,
  what,
  onClose,
}: {
  workspaceId: string;
  report: ReportOfKind;
  defaultTitle: string;
  what: string;
  onClose: () => void;
}) {
  const { kind, params } = report;
  const dialog = useModalDialog(onClose);
  const formRef = useRef<HTMLFormElement>(null);
  const titleId = useId();
  const [title, setTitle] = useState(defaultTitle);
  // Share is for sharing: the dialog starts on Unlisted, the choice that gives the report an
  // address without putting it in front of search engines; Private is one step away.
  const [visibility, setVisibility] = useState<ReportVisibility>('UNLISTED');
  const [password, setPassword] = useState('');
  const [made, setMade] = useState<Report | null>(null);
  const errors = useFormErrors<Field>(FIELDS, formRef);

  const create = useCreateReport(ws, {
    onSuccess: (answer) => setMade(answer.data),
    onError: (err) => errors.show(err),
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!errors.check({ title: title.trim() ? undefined : 'Give the report a title.' })) return;
    create.mutate({ ...report, title, visibility, ...(visibility !== 'PRIVATE' && password ? { password } : {}) });
  };
  const detail = VISIBILITIES.find((v) => v.value === visibility)!.detail;

  return (
    <dialog {...dialog} className="dialog dialog-wide" aria-labelledby={titleId}>
      {made ? (
        <div className="share-result">
          <h2 id={titleId}>Report saved</h2>
          <p role="status">
            <strong>{made.title}</strong> is saved under Reports{made.url ? '.' : ', private to this workspace.'}
          </p>
          {made.url ? (
            <div className="secret">
              <label htmlFor={`${titleId}-url`}>
                {made.hasPassword
                  ? 'Anyone with this link and the password can read it'
                  : 'Anyone with this link can read it'}
              </label>
              <input
                id={`${titleId}-url`}
                type="text"
                readOnly
                value={made.url}
                onFocus={(e) => e.currentTarget.select()}
              />
              <CopyButton text={made.url} label={`Copy link to ${made.title}`} visible="Copy link" />
            </div>
          ) : (
            <p className="muted">Change its visibility under Reports to share it outside the workspace.</p>
          )}
          <div className="dialog-actions">
            <Link href={wsPath(ws, '/reports')} className="button">
              Open Reports
            </Link>
            <button type="button" className="button button-primary" onClick={onClose} autoFocus>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form ref={formRef} onSubmit={submit} noValidate>
          <h2 id={titleId}>Share this view</h2>
          <p className="dialog-body">
            {KIND_LABELS[kind]}: {what}, {windowPhrase(params.window)}.{' '}
            {'lastDays' in params.window
              ? 'The window moves with the date; figures are computed when the report is read.'
              : 'Figures are computed when the report is read.'}
          </p>
          <FormAlert message={errors.form} />
          <TextField
            label="Title"
            {...boundText(title, setTitle)}
            maxLength={200}
            required
            error={errors.fields.title}
          />
          <SelectField
            label="Visibility"
            value={visibility}
            onChange={(e) => setVisibility(e.target.value as ReportVisibility)}
            hint={detail}
            error={errors.fields.visibility}
          >
            <Options choices={SHARE_CHOICES} />
          </SelectField>
          {visibility !== 'PRIVATE' ? (
            <TextField
              label="Password (optional)"
              type="password"
              autoComplete="new-password"
              {...boundText(password, setPassword)}
              maxLength={256}
              hint="Readers must enter it before they see the report."
              error={errors.fields.password}
            />
          ) : null}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
            <SubmitButton pending={create.isPending}>Save report</SubmitButton>
          </div>
        </form>
      )}
    </dialog>
  );
}
