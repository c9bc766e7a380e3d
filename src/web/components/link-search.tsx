// Choosing one of the workspace's links by searching them (slug, title or destination), never by
// typing its id: a bio page's link block, a goal's link or QR code, the conversions' filters. And
// a chosen link shown as people know it: its short URL and title.
import { type ReactNode, useId, useState } from 'react';
import { asApiError } from '../api/errors.ts';
import { linkQrCode, useLinkList } from '../api/links.ts';
import { useLink, useQrCode } from '../api/queries.ts';
import type { DashboardLink } from '../api/types.ts';
import { useDebouncedValue } from '../lib/hooks.ts';
import { searchInForm } from './text-inputs.ts';

const CHOICES = 6;
const bare = (url: string) => url.replace(/^https?:\/\//, '');

export function LinkSearch({
  workspaceId,
  label = 'Find a short link',
  listLabel,
  choiceLabel,
  onPick,
  activeOnly = false,
  emptyHint = '',
  describedBy,
}: {
  workspaceId: string;
  label?: string;
  /** The accessible name of the list of choices. */
  listLabel: string;
  /** The accessible name of a choice's "Use" button. */
  choiceLabel: (link: DashboardLink) => string;
  onPick: (link: DashboardLink) => void;
  /** Only links that redirect now (a bio page's block); otherwise every link. */
  activeOnly?: boolean;
  /** Said after "No link matches" or "No links yet". */
  emptyHint?: string;
  describedBy?: string;
}) {
  const id = useId();
  const [q, setQ] = useState('');
  const settled = useDebouncedValue(q.trim(), 300);
  const query = { q: settled || undefined, ...(activeOnly ? { status: 'ACTIVE' as const } : {}), limit: CHOICES };
  const found = useLinkList(workspaceId, query, ['choices', activeOnly, settled]);
  const links = found.data?.data ?? [];
  const kind = activeOnly ? 'active link' : 'link';
  return (
    <div className="link-search">
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          {...searchInForm(q, setQ)}
          placeholder="Slug, title or destination"
          maxLength={200}
          aria-describedby={[`${id}-hint`, describedBy].filter(Boolean).join(' ')}
          aria-invalid={describedBy ? true : undefined}
        />
        <p id={`${id}-hint`} className="field-hint">
          {settled ? `Matching ${kind}s, newest first.` : `Your newest ${kind}s; type to search them all.`}
        </p>
      </div>
      {found.isError && !found.data ? (
        <p className="field-error">Could not search the links: {found.error.message}</p>
      ) : found.isPending ? (
        <p className="muted">Loading links…</p>
      ) : links.length === 0 ? (
        <p className="muted">
          {settled ? `No ${kind} matches “${settled}”. ` : `No ${kind}s yet. `}
          {emptyHint}
        </p>
      ) : (
        <ul className="link-choices" aria-label={listLabel}>
          {links.map((l) => (
            <li key={l.id}>
              <span className="link-choice-text">
                <strong>{l.slug}</strong>
                <span className="muted truncate" title={l.originalUrl}>
                  {bare(l.shortUrl)} → {l.originalUrl}
                </span>
              </span>
              <button
                type="button"
                className="button button-small"
                aria-label={choiceLabel(l)}
                onClick={() => onPick(l)}
              >
                Use
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A link by its id, as people know it: "sho.rt/spring-sale (Spring sale)"; its id only while it loads. */
export function LinkName({ workspaceId, linkId }: { workspaceId: string; linkId: string }) {
  const link = useLink(workspaceId, linkId);
  if (link.data) {
    return (
      <span className="link-name" title={link.data.originalUrl}>
        {bare(link.data.shortUrl)}
        {link.data.title ? <span className="muted"> ({link.data.title})</span> : null}
      </span>
    );
  }
  if (link.isError) return <span className="muted">a deleted link</span>;
  return <span className="muted">{linkId}</span>;
}

/** A QR code by its id, as people know it: "QR code of sho.rt/spring-sale"; its id only while it loads. */
export function QrName({ workspaceId, qrCodeId }: { workspaceId: string; qrCodeId: string }) {
  const qr = useQrCode(workspaceId, qrCodeId);
  if (qr.data) {
    return (
      <>
        QR code of <LinkName workspaceId={workspaceId} linkId={qr.data.linkId} />
      </>
    );
  }
  if (qr.isError) return <span className="muted">a deleted QR code</span>;
  return <span className="muted">QR code {qrCodeId}</span>;
}

/**
 * The frame of a form's chosen object: its name with "Change", or, while none is chosen, the
 * search to choose one; the field's problem under either, tied to the control shown.
 */
function ChosenField({
  label,
  name,
  error,
  chosen,
  onClear,
  search,
}: {
  label: string;
  name: string;
  error?: string | undefined;
  /** The chosen object's name; null while none is chosen. */
  chosen: ReactNode;
  onClear: () => void;
  search: (describedBy: string | undefined) => ReactNode;
}) {
  const errorId = useId();
  const describedBy = error ? errorId : undefined;
  return (
    <div className="field link-field">
      {chosen ? (
        <>
          <span className="field-label">{label}</span>
          <div className="link-chosen">
            <span className="link-name">{chosen}</span>
            <button
              type="button"
              className="button button-small"
              aria-label={`Change ${name}`}
              aria-describedby={describedBy}
              data-problem={error ? true : undefined}
              onClick={onClear}
            >
              Change
            </button>
          </div>
        </>
      ) : (
        search(describedBy)
      )}
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A form's link: the chosen one, or the search to choose one. `name` names it in buttons' names. */
export function LinkField({
  workspaceId,
  linkId,
  onChange,
  label,
  name,
  error,
}: {
  workspaceId: string;
  linkId: string;
  onChange: (linkId: string) => void;
  label: string;
  name: string;
  error?: string;
}) {
  return (
    <ChosenField
      label={label}
      name={name}
      error={error}
      chosen={linkId ? <LinkName workspaceId={workspaceId} linkId={linkId} /> : null}
      onClear={() => onChange('')}
      search={(describedBy) => (
        <LinkSearch
          workspaceId={workspaceId}
          label={label}
          listLabel={`Links for ${name}`}
          choiceLabel={(l) => `Use ${l.slug} for ${name}`}
          onPick={(l) => onChange(l.id)}
          describedBy={describedBy}
        />
      )}
    />
  );
}

/**
 * A form's QR code, chosen by its link (a link's QR code is made on the link's page), and shown
 * by its link.
 */
export function QrField({
  workspaceId,
  qrCodeId,
  onChange,
  label,
  name,
  error,
  named,
}: {
  workspaceId: string;
  qrCodeId: string;
  /** How the screen already names the chosen code (the conversions' answer names deleted ones too). */
  named?: string | undefined;
  onChange: (qrCodeId: string) => void;
  label: string;
  name: string;
  error?: string | undefined;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  const pick = async (link: DashboardLink) => {
    setProblem(null);
    try {
      const qr = await linkQrCode(workspaceId, link.id);
      if (!qr) return setProblem(`${bare(link.shortUrl)} has no QR code yet: make one on the link's page.`);
      onChange(qr.id);
    } catch (err) {
      setProblem(`Could not read the link's QR code: ${asApiError(err).message}`);
    }
  };
  return (
    <ChosenField
      label={label}
      name={name}
      error={problem ?? error}
      chosen={qrCodeId ? (named ?? <QrName workspaceId={workspaceId} qrCodeId={qrCodeId} />) : null}
      onClear={() => onChange('')}
      search={(describedBy) => (
        <LinkSearch
          workspaceId={workspaceId}
          label={label}
          listLabel={`Links whose QR code is ${name}`}
          choiceLabel={(l) => `Use the QR code of ${l.slug} for ${name}`}
          onPick={(l) => void pick(l)}
          describedBy={describedBy}
        />
      )}
    />
  );
}
