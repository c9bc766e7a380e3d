// Bio pages: the workspace's pages, newest first, each with its address, state and dates; a new
// page. Each opens to its editor.
import { usePages } from '../../api/pages.ts';
import { useId } from 'react';
import { Link, useLocation, useParams, useSearchParams } from 'wouter';
import { can, useMembership } from '../../api/session.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { ACTIONS, DataTable, ListState } from '../../components/data-table.tsx';
import { EmptyState, StatusNotice } from '../../components/feedback.tsx';
import { PageHeader } from '../../components/page.tsx';
import { When } from '../../components/when.tsx';
import { pagePath, pagesPath, pageState, STATE_NAMES, stateBadgeClass } from './page-data.ts';

export default function Pages() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const [, navigate] = useLocation();
  const [params] = useSearchParams();
  const deleted = params.get('deleted');
  const caption = useId();
  const list = usePages(ws);

  const newPage = can.editPages(role) ? (
    <button type="button" className="button button-primary" onClick={() => navigate(`${pagesPath(ws)}/new`)}>
      New page
    </button>
  ) : null;
  const empty = list.data?.length === 0;

  return (
    <>
      {/* An empty workspace offers New page in its empty state: one button of that name, not two. */}
      <PageHeader title="Pages" actions={empty ? null : newPage}>
        <p className="muted">
          Link-in-bio pages: one address, <span className="mono">/@handle</span>, with your title, bio and links, for a
          social profile.
        </p>
      </PageHeader>
      {deleted ? <StatusNotice>Page @{deleted} deleted.</StatusNotice> : null}
      <ListState
        read={list}
        loading="Loading pages…"
        what="the pages"
        empty={
          <EmptyState title="No pages yet" action={newPage}>
            {can.editPages(role)
              ? 'Make a page with a title, a short bio and your links, preview it as you type, and publish it when it is ready.'
              : 'Pages made in this workspace will be listed here.'}
          </EmptyState>
        }
      >
        {(rows) => (
          <DataTable
            caption="Pages"
            captionId={caption}
            cards
            className="pages-table"
            headers={['Page', 'Title', 'Status', 'Published', 'Created', ACTIONS]}
          >
            {rows.map((p) => {
              const state = pageState(p);
              return (
                <tr key={p.id}>
                  <td className="cell-page">
                    <Link href={pagePath(ws, p.id)} className="slug-link">
                      @{p.handle}
                    </Link>
                    <span className="page-url">
                      <span className="muted short-url">{p.url.replace(/^https?:\/\//, '')}</span>
                      <CopyButton text={p.url} label={`Copy address of @${p.handle}`} />
                    </span>
                  </td>
                  <td data-label="Title" className="cell-title">
                    {p.title}
                  </td>
                  <td data-label="Status">
                    <span className={stateBadgeClass(state)}>{STATE_NAMES[state]}</span>
                  </td>
                  <td data-label="Published" className="nowrap">
                    {p.publishedAt ? <When iso={p.publishedAt} /> : <span className="muted">Not published</span>}
                  </td>
                  <td data-label="Created" className="nowrap">
                    <When iso={p.createdAt} />
                  </td>
                  <td className="cell-actions">
                    <Link
                      href={pagePath(ws, p.id, '/analytics')}
                      className="button button-small button-quiet"
                      aria-label={`Analytics for @${p.handle}`}
                    >
                      Analytics
                    </Link>
                  </td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </ListState>
    </>
  );
}
