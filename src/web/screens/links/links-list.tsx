// A workspace's links: search (debounced), filters, sort and pages kept in the address, so a
// reload or the back button returns to the same view; selection and bulk actions by role. "New
// link" (and `c` from any screen, components/keyboard-help.tsx) opens a dialog over the list;
// `/` goes to the search.
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link, useParams, useSearchParams } from 'wouter';
import { useLinkList } from '../../api/links.ts';
import { useDomains, useTags, useWorkspace } from '../../api/queries.ts';
import { can, useMembership } from '../../api/session.ts';
import type { DashboardLink } from '../../api/types.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { ACTIONS, DataTable } from '../../components/data-table.tsx';
import { EmptyState, LoadError, Loading } from '../../components/feedback.tsx';
import { Options, SelectField } from '../../components/fields.tsx';
import { PageHeader } from '../../components/page.tsx';
import { TagChip, tagChoices } from '../../components/tag-chip.tsx';
import { ComboField } from '../../components/combo-field.tsx';
import { When } from '../../components/when.tsx';
import { useShortcuts } from '../../lib/shortcuts.ts';
import { formatCount, pageRange } from '../../lib/format.ts';
import { useDebouncedValue } from '../../lib/hooks.ts';
import { BulkBar, BulkOutcomeNotice, type BulkOutcome } from './bulk-bar.tsx';
import { linkPath, wsPath } from './paths.ts';
import { LinkBadges } from './link-badges.tsx';
import { SiteIcon } from './site-icon.tsx';
import { useQuickCreate } from './quick-create.tsx';
import { boundText } from '../../components/text-inputs.ts';

const LIMIT = 25;

type Sort = 'created' | 'clicks';
type Order = 'asc' | 'desc';
type Status = 'ACTIVE' | 'DISABLED';

export function LinksList() {
  const { workspaceId: ws } = useParams<{ workspaceId: string }>();
  const role = useMembership(ws)!.role;
  const [params, setParams] = useSearchParams();

  const q = params.get('q') ?? '';
  const tagId = params.get('tag') ?? '';
  const domainId = params.get('domain') ?? '';
  const status: Status | '' =
    params.get('status') === 'ACTIVE' || params.get('status') === 'DISABLED' ? (params.get('status') as Status) : '';
  const sort: Sort = params.get('sort') === 'clicks' ? 'clicks' : 'created';
  const order: Order = params.get('order') === 'asc' ? 'asc' : 'desc';
  const page = Math.max(1, Math.floor(Number(params.get('page'))) || 1);
  const filtered = Boolean(q || tagId || domainId || status);

  /** Changes the view; any change but the page goes back to page 1. */
  const update = (changes: Record<string, string | null>) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(changes)) {
          if (v) next.set(k, v);
          else next.delete(k);
        }
        if (!('page' in changes)) next.delete('page');
        return next;
      },
      { replace: !('page' in changes) },
    );

  // The search box types freely; the address (and the request) follows once typing pauses.
  const [search, setSearch] = useState(q);
  const settled = useDebouncedValue(search, 300);
  useEffect(() => {
    if (settled.trim() !== q) update({ q: settled.trim() || null });
    // Only a settled search changes the address.
  }, [settled]);
  useEffect(() => {
    // Back and forward bring their own search.
    if (q !== settled.trim()) setSearch(q);
    // Follows the address only.
  }, [q]);

  const query = {
    q: q || undefined,
    tagId: tagId || undefined,
    domainId: domainId || undefined,
    status: status || undefined,
    sort,
    order,
    page,
    limit: LIMIT,
  };
  const links = useLinkList(ws, query);
  const tags = useTags(ws);
  const domains = useDomains(ws);
  const icons = useWorkspace(ws).data?.destinationFetch === true;

  const rows: DashboardLink[] = links.data?.data ?? [];
  // One moment for the whole page: every row's badges and relative dates agree.
  const now = links.dataUpdatedAt || Date.now();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);
  const viewKey = JSON.stringify(query);
  useEffect(() => setSelected(new Set()), [viewKey]);

  const canSelect = can.editLinks(role);
  const allOnPage = rows.length > 0 && rows.every((l) => selected.has(l.id));
  const someOnPage = rows.some((l) => selected.has(l.id));
  const selectAll = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (selectAll.current) selectAll.current.indeterminate = someOnPage && !allOnPage;
  }, [someOnPage, allOnPage]);
  const slugs = useMemo(() => new Map(rows.map((l) => [l.id, l.slug])), [rows]);

  const toggle = (id: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const quick = useQuickCreate(ws, can.editLinks(role));

  const ids = {
    search: useId(),
    caption: useId(),
    filters: useId(),
    selectAll: useId(),
  };
  const [filtersOpen, setFiltersOpen] = useState(false);
  useShortcuts({ '/': () => document.getElementById(ids.search)?.focus() });
  const activeFilters =
    [tagId, domainId, status].filter(Boolean).length + (sort !== 'created' || order !== 'desc' ? 1 : 0);

  const meta = links.data?.meta;
  const total = meta?.total ?? 0;
  const capped = meta?.totalCapped ?? false;
  const hasNext = rows.length === LIMIT && (capped || page * LIMIT < total);
  const range = rows.length ? pageRange(page, LIMIT, rows.length, total, capped) : '';
  const noLinksYet = Boolean(links.data) && rows.length === 0 && !filtered && page === 1;

  const selectAllBox = (
    <>
      <input
        ref={selectAll}
        type="checkbox"
        id={ids.selectAll}
        aria-label="Select all on this page"
        checked={allOnPage}
        onChange={(e) =>
          setSelected((prev) => {
            const next = new Set(prev);
            for (const l of rows) {
              if (e.target.checked) next.add(l.id);
              else next.delete(l.id);
            }
            return next;
          })
        }
      />
      <label htmlFor={ids.selectAll} className="select-all-text" aria-hidden="true">
        Select all
      </label>
    </>
  );
  return (
    <>
      {/* An empty workspace offers New link in its empty state: one button of that name, not two. */}
      <PageHeader title="Links" actions={noLinksYet ? null : quick.button} />

      <div className="toolbar" role="search" aria-label="Links">
        <div className="field field-search">
          <label htmlFor={ids.search}>Search links</label>
          <input
            id={ids.search}
            type="search"
            {...boundText(search, setSearch)}
            placeholder="Slug, title or destination"
            maxLength={200}
          />
        </div>
        {/* On phones the filters fold away behind this button; wider screens always show them. */}
        <button
          type="button"
          className="button filters-toggle"
          aria-expanded={filtersOpen}
          aria-controls={ids.filters}
          onClick={() => setFiltersOpen((open) => !open)}
        >
          Filters and sort{activeFilters ? ` (${activeFilters})` : ''}
        </button>
        <div id={ids.filters} className={`toolbar-filters${filtersOpen ? ' is-open' : ''}`}>
          <ComboField
            label="Tag"
            noun="tag"
            everything="All tags"
            choices={tagChoices(tags.data ?? [])}
            value={tagId}
            onChange={(tag) => update({ tag: tag || null })}
          />
          <SelectField label="Domain" value={domainId} onChange={(e) => update({ domain: e.target.value || null })}>
            <option value="">All domains</option>
            <option value="short">Shared short domain</option>
            <Options choices={(domains.data ?? []).map((d) => ({ value: d.id, label: d.host }))} />
          </SelectField>
          <SelectField label="Status" value={status} onChange={(e) => update({ status: e.target.value || null })}>
            <option value="">Any status</option>
            <option value="ACTIVE">Active</option>
            <option value="DISABLED">Disabled</option>
          </SelectField>
          <SelectField
            label="Sort by"
            value={sort}
            onChange={(e) => update({ sort: e.target.value === 'clicks' ? 'clicks' : null })}
          >
            <option value="created">Created</option>
            <option value="clicks">Clicks</option>
          </SelectField>
          <SelectField
            label="Order"
            value={order}
            onChange={(e) => update({ order: e.target.value === 'asc' ? 'asc' : null })}
          >
            <option value="desc">{sort === 'clicks' ? 'Most clicks first' : 'Newest first'}</option>
            <option value="asc">{sort === 'clicks' ? 'Fewest clicks first' : 'Oldest first'}</option>
          </SelectField>
        </div>
      </div>

      {quick.dialog}
      {outcome ? <BulkOutcomeNotice outcome={outcome} onDismiss={() => setOutcome(null)} /> : null}

      {canSelect && selected.size > 0 ? (
        <BulkBar
          workspaceId={ws}
          selected={[...selected]}
          slugOf={(id) => slugs.get(id) ?? id}
          tags={tags.data ?? []}
          canDelete={can.deleteLinks(role)}
          onClear={() => setSelected(new Set())}
          onDone={(result) => {
            setOutcome(result);
            setSelected(new Set());
          }}
        />
      ) : null}

      {links.isPending ? (
        <Loading label="Loading links…" />
      ) : links.isError && !links.data ? (
        <LoadError error={links.error} retry={() => links.refetch()} what="the links" />
      ) : rows.length === 0 ? (
        filtered || page > 1 ? (
          <EmptyState
            title="No links match"
            action={
              <button
                type="button"
                className="button"
                onClick={() => {
                  setSearch('');
                  setParams(new URLSearchParams(), { replace: true });
                }}
              >
                Clear search and filters
              </button>
            }
          >
            Try other words, or clear the search and filters to see every link.
          </EmptyState>
        ) : (
          <EmptyState title="No links yet" action={quick.button}>
            {can.editLinks(role) ? (
              <>
                Make your first short link, or <Link href={wsPath(ws, '/import')}>import links from a CSV file</Link>.
              </>
            ) : (
              'Links made in this workspace will be listed here.'
            )}
          </EmptyState>
        )
      ) : (
        <>
          <DataTable
            caption={`Links, ${range}`}
            captionId={ids.caption}
            className="links-table"
            wrapClassName="links-wrap"
            busy={links.isFetching}
            headers={[
              canSelect && { className: 'col-check', content: selectAllBox },
              'Short link',
              'Destination',
              'Tags',
              'Status',
              { className: 'num', content: 'Clicks' },
              'Created',
              ACTIONS,
            ]}
          >
            {rows.map((l) => (
              <tr key={l.id} className={selected.has(l.id) ? 'is-selected' : undefined}>
                {canSelect ? (
                  <td className="col-check">
                    <input
                      type="checkbox"
                      aria-label={`Select ${l.slug}`}
                      checked={selected.has(l.id)}
                      onChange={(e) => toggle(l.id, e.target.checked)}
                    />
                  </td>
                ) : null}
                <td className="cell-short">
                  <Link href={linkPath(ws, l.id)} className="slug-link">
                    {l.slug}
                  </Link>
                  <span className="muted short-url" title={l.shortUrl}>
                    {l.shortUrl.replace(/^https?:\/\//, '')}
                  </span>
                </td>
                <td className="cell-dest">
                  <span className="dest-line">
                    {icons ? <SiteIcon ws={ws} url={l.originalUrl} /> : null}
                    <span className="truncate" title={l.originalUrl}>
                      {l.originalUrl}
                    </span>
                  </span>
                  {l.title ? <span className="muted truncate">{l.title}</span> : null}
                </td>
                <td className="cell-tags">
                  {l.tags.length ? (
                    <span className="tag-list">
                      {l.tags.map((t) => (
                        <TagChip key={t.id} name={t.name} color={t.color} />
                      ))}
                    </span>
                  ) : (
                    <span className="visually-hidden">No tags</span>
                  )}
                </td>
                <td className="cell-status">
                  <LinkBadges link={l} now={now} />
                </td>
                <td className="num cell-clicks" data-label="Clicks">
                  {formatCount(l.clicks)}
                </td>
                <td className="nowrap cell-created" data-label="Created">
                  <When iso={l.createdAt} relative />
                </td>
                <td className="cell-actions">
                  <CopyButton text={l.shortUrl} label={`Copy short URL for ${l.slug}`} />
                  <Link href={linkPath(ws, l.id, '/analytics')} className="button button-small">
                    Analytics
                  </Link>
                </td>
              </tr>
            ))}
          </DataTable>
          <nav className="pagination" aria-label="Pages of links">
            <button
              type="button"
              className="button button-small"
              disabled={page <= 1}
              onClick={() => update({ page: page > 2 ? String(page - 1) : null })}
            >
              Previous page
            </button>
            <span className="pagination-range">{range}</span>
            <button
              type="button"
              className="button button-small"
              disabled={!hasNext}
              onClick={() => update({ page: String(page + 1) })}
            >
              Next page
            </button>
          </nav>
        </>
      )}
    </>
  );
}
