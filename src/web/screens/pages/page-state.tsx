// A saved page's state in words, its address (copy, open), and what changes what visitors see at
// once: Unpublish, Disable / Enable. Publishing is the form's, since it publishes the form.
import { Link } from 'wouter';
import type { BioPage } from '../../api/types.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { formatDateTime } from '../../lib/dates.ts';
import { pagePath, pageState, STATE_NAMES, stateBadgeClass } from './page-data.ts';

function stateWords(page: BioPage): string {
  const at = page.publishedAt ? formatDateTime(page.publishedAt) : '';
  if (page.status === 'DISABLED') {
    return page.published
      ? `Disabled: visitors get “not found” at the address until the page is enabled; then the version published at ${at} is back.`
      : 'Disabled: visitors get “not found” at the address until the page is enabled and published.';
  }
  if (!page.published) return 'Draft: not published. Visitors get “not found” at the address until you publish.';
  if (page.hasUnpublishedChanges)
    return `Published at ${at}. Changes not published yet: visitors see the version published then.`;
  return `Published at ${at}. Visitors see the draft as it is.`;
}

export function PageStatePanel({
  ws,
  page,
  editable,
  busy,
  onUnpublish,
  onStatus,
}: {
  ws: string;
  page: BioPage;
  editable: boolean;
  busy: boolean;
  onUnpublish: () => void;
  onStatus: (status: BioPage['status']) => void;
}) {
  const state = pageState(page);
  const live = state === 'published' || state === 'changed';
  return (
    <section className="panel page-state" aria-labelledby="page-state-heading">
      <div className="page-state-head">
        <h2 id="page-state-heading">State</h2>
        <span className={stateBadgeClass(state)}>{STATE_NAMES[state]}</span>
      </div>
      <p className="page-state-words">{stateWords(page)}</p>
      <div className="page-address-line">
        {live ? (
          <a href={page.url} className="page-address" target="_blank" rel="noreferrer">
            {page.url}
          </a>
        ) : (
          <span className="page-address">{page.url}</span>
        )}
        <div className="button-row">
          <CopyButton text={page.url} label={`Copy address of @${page.handle}`} visible="Copy address" />
          {live ? (
            <a href={page.url} className="button button-small" target="_blank" rel="noreferrer">
              Open page
            </a>
          ) : null}
          <Link href={pagePath(ws, page.id, '/analytics')} className="button button-small">
            Analytics
          </Link>
          {editable && page.published ? (
            <button type="button" className="button button-small" disabled={busy} onClick={onUnpublish}>
              Unpublish
            </button>
          ) : null}
          {editable ? (
            <button
              type="button"
              className="button button-small"
              disabled={busy}
              onClick={() => onStatus(page.status === 'ACTIVE' ? 'DISABLED' : 'ACTIVE')}
            >
              {page.status === 'ACTIVE' ? 'Disable' : 'Enable'}
            </button>
          ) : null}
        </div>
      </div>
    </section>
  );
}
