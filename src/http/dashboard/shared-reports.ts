// Reading a shared report (openapi/dashboard.yaml, readSharedReport; the page /app/shared/{token}):
// which token opens which report now, and its figures, computed by the screens' own code and
// reused for at most a minute.
import * as pages from '../../db/repos/bio-pages.ts';
import * as links from '../../db/repos/links.ts';
import { findReportByTokenHash, paramsOf, type ReportRow } from '../../db/repos/reports.ts';
import { getWorkspace } from '../../db/repos/workspaces.ts';
import { findDomainOf } from '../../db/repos/domains.ts';
import { planHasApi, type Plan } from '../../domain/access.ts';
import { DAY_MS } from '../../domain/conversions.ts';
import { notFound, unavailable } from '../../domain/errors.ts';
import { parseContent } from '../../domain/bio-pages.ts';
import { CONVERSION_FILTERS, readsConversions, resolveWindow, SHARED_FIGURES_TTL_MS } from '../../domain/reports.ts';
import { hashSecret } from '../../domain/sessions.ts';
import type { components } from '../../../generated/dashboard.ts';
import { goalReport } from '../../operations/conversions.ts';
import { pageUrl } from '../../operations/pages.ts';
import type { Services } from '../services.ts';
import { conversionsView } from './handlers/conversions.ts';
import { linkAnalyticsView } from './handlers/links.ts';
import { pageAnalyticsView } from './handlers/pages.ts';

type SharedReport = components['schemas']['SharedReport'];
export type SharedFiguresBody = Omit<SharedReport, 'title' | 'kind'>;

export interface SharedFind {
  row: ReportRow;
  plan: Plan;
}

/**
 * The report this token opens now, read from the database on every call (so a report made
 * PRIVATE, deleted or given a new token stops answering at once, on every process): undefined
 * for an unknown token, a PRIVATE report, and a CONVERSIONS or GOAL report of a workspace whose
 * plan no longer includes conversions (LINK and PAGE reports read on every plan). All of these
 * answer the same 404.
 */
export async function findSharedReport(services: Services, token: string): Promise<SharedFind | undefined> {
  const { knex } = services.db;
  const row = await findReportByTokenHash(knex, hashSecret(token));
  if (!row || row.visibility === 'PRIVATE') return undefined;
  const ws = await getWorkspace(knex, row.workspace_id);
  if (!ws) return undefined;
  if (readsConversions(row.kind) && !planHasApi(ws.plan)) return undefined;
  return { row, plan: ws.plan };
}

/** Search engines may index the page of a PUBLIC report without a password, and nothing else. */
export const mayBeIndexed = (row: ReportRow) => row.visibility === 'PUBLIC' && !row.password_hash;

const MAX_CACHED = 1000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The figures of shared reports, per process. An entry is keyed by the report and the time it
 * last changed, so a changed report (visibility, params, token, password, title) is computed
 * afresh; an entry lives at most SHARED_FIGURES_TTL_MS. Concurrent reads of one report share
 * one computation, so a popular report costs one summary a minute, not one per reader.
 */
export class SharedFigures {
  private readonly entries = new Map<string, { expires: number; figures: Promise<SharedFiguresBody> }>();
  constructor(private readonly services: Services) {}

  get(found: SharedFind, now = Date.now()): Promise<SharedFiguresBody> {
    const key = `${found.row.id}:${found.row.updated_at}`;
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.figures;
    if (hit) this.entries.delete(key);
    this.makeRoom(now);
    const figures = this.compute(found.row, now);
    this.entries.set(key, { expires: now + SHARED_FIGURES_TTL_MS, figures });
    // A failure (a deleted link or page, a feature switched off) is answered, not kept.
    figures.catch(() => this.entries.get(key)?.figures === figures && this.entries.delete(key));
    return figures;
  }

  private makeRoom(now: number) {
    if (this.entries.size < MAX_CACHED) return;
    for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
    // Still full of live entries: the oldest go (a Map iterates in insertion order).
    for (const k of this.entries.keys()) {
      if (this.entries.size < MAX_CACHED) break;
      this.entries.delete(k);
    }
  }

  private async compute(row: ReportRow, now: number): Promise<SharedFiguresBody> {
    const { services } = this;
    const { config } = services;
    const { knex } = services.db;
    const params = paramsOf(row);
    const w = resolveWindow(row.kind, params.window, now);
    const window = {
      from: new Date(w.from).toISOString(),
      to: new Date(w.to).toISOString(),
      lastDays: 'lastDays' in params.window ? params.window.lastDays : null,
    };
    const generatedAt = new Date(now).toISOString();
    if (row.kind === 'CONVERSIONS') {
      if (!config.featureConversions)
        throw unavailable('Conversion tracking is not available on this deployment', 'conversions_unavailable');
      const filters = Object.fromEntries(
        CONVERSION_FILTERS.filter((f) => params[f] !== undefined).map((f) => [f, params[f]]),
      ) as SharedFiguresBody['filters'] & {};
      return {
        window,
        generatedAt,
        filters,
        conversions: await conversionsView(services, row.workspace_id, {
          from: window.from,
          to: window.to,
          ...filters,
        }),
      };
    }
    if (row.kind === 'GOAL') {
      if (!config.featureGoals || !config.featureConversions)
        throw unavailable('Goals are not available on this deployment', 'goals_unavailable');
      return {
        window,
        generatedAt,
        goal: await goalReport(services, row.workspace_id, params.goalId!, { from: window.from, to: window.to }),
      };
    }
    // A link's or a page's analytics: the days of the window as their screens ask for them.
    const days = { from: isoDay(w.from), to: isoDay(w.to - DAY_MS) };
    if (row.kind === 'PAGE') {
      const page = await pages.getPage(knex, row.workspace_id, params.pageId!);
      if (!page) throw notFound('The page of this report no longer exists');
      return {
        window,
        generatedAt,
        page: {
          handle: page.handle,
          url: pageUrl(config.shortDomain, page.handle),
          // The title visitors see while it is published, else the draft's.
          title: parseContent(page.published ?? page.draft).title,
          analytics: await pageAnalyticsView(services, page, days),
        },
      };
    }
    const link = await links.getLink(knex, row.workspace_id, params.linkId!);
    if (!link) throw notFound('The link of this report no longer exists');
    const host = link.domain_id ? (await findDomainOf(knex, row.workspace_id, link.domain_id))?.host : undefined;
    const analytics = await linkAnalyticsView(services, row.workspace_id, link.id, days);
    return {
      window,
      generatedAt,
      link: {
        slug: link.slug,
        shortUrl: `https://${host ?? config.shortDomain}/${link.slug}`,
        title: link.title,
        analytics,
      },
    };
  }
}
