// Conversions: recording, summaries and goal reports, as the public API
// (openapi/paths/api_v1_conversions.yaml, api_v1_goals*.yaml) and the dashboard give them: the
// same validation and messages for both.
import type { components } from '../../generated/api.ts';
import type { Config } from '../config.ts';
import { planHasApi, type Plan } from '../domain/access.ts';
import {
  beyondConversionRetention,
  breakdownEntries,
  CONVERSION_FUTURE_SKEW_MS,
  CONVERSION_RETENTION_DAYS,
  DAY_MS,
  EVENT_TYPES,
  intersectWindow,
  isCurrency,
  MAX_METADATA_BYTES,
  parseWindow,
  progress,
  rateOf,
  typeEntries,
  valueEntries,
  type EventType,
  type Window,
} from '../domain/conversions.ts';
import { seriesEntries } from '../domain/conversion-series.ts';
import { newId } from '../domain/ids.ts';
import { ClickIds } from '../domain/forwarding.ts';
import type { Db } from '../db/knex.ts';
import type { ClickCounts } from '../db/repos/click-counts.ts';
import * as conversions from '../db/repos/conversions.ts';
import * as goals from '../db/repos/goals.ts';
import * as links from '../db/repos/links.ts';
import { findCampaign, findQrCode } from '../db/repos/workspace-objects.ts';
import { serviceEvent } from '../domain/events.ts';
import { IDEMPOTENCY_TTL_MS, requestHash } from '../domain/idempotency.ts';
import { forbidden, invalid, notFound, quoted, unavailable } from '../domain/errors.ts';
import type { OperationServices } from './services.ts';

type ConversionCreate = components['schemas']['ConversionCreate'];
type Conversion = components['schemas']['Conversion'];
type GoalReport = components['schemas']['GoalReport'];
type ConversionSummary = components['schemas']['ConversionSummary'];
export const iso = (ms: number | null) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

export function presentConversion(r: conversions.ConversionRow): Conversion {
  return {
    id: r.id,
    eventType: r.event_type,
    customName: r.custom_name,
    linkId: r.link_id,
    campaignId: r.campaign_id,
    qrCodeId: r.qr_code_id,
    value: r.currency ? { amountMinor: Number(r.amount_minor), currency: r.currency } : null,
    occurredAt: iso(r.occurred_at)!,
    createdAt: iso(r.created_at)!,
  };
}

/** Conversion tracking's gate: the deployment has it (503); with a plan, the plan includes it (403 naming it). */
export function requireConversions(config: Config, plan?: Plan): void {
  if (!config.featureConversions) {
    throw unavailable('Conversion tracking is not available on this deployment', 'conversions_unavailable');
  }
  if (plan !== undefined && !planHasApi(plan)) {
    throw forbidden(`The ${plan} plan does not include conversions; conversions need the Growth plan or above`);
  }
}

async function validateReferences(knex: Db, masterKey: Buffer, workspaceId: string, body: ConversionCreate) {
  let linkId = body.linkId ?? null;
  if (body.linkId) {
    const link = await links.getLink(knex, workspaceId, body.linkId);
    if (!link) throw invalid(`linkId ${quoted(body.linkId)} is not a link of this workspace`, 'linkId');
  }
  if (body.campaignId) {
    const campaign = await findCampaign(knex, workspaceId, body.campaignId);
    if (!campaign)
      throw invalid(`campaignId ${quoted(body.campaignId)} is not a campaign of this workspace`, 'campaignId');
  }
  if (body.qrCodeId) {
    const qr = await findQrCode(knex, workspaceId, body.qrCodeId);
    if (!qr) throw invalid(`qrCodeId ${quoted(body.qrCodeId)} is not a QR code of this workspace`, 'qrCodeId');
    // A conversion that names a QR code is attributed to that QR code's link.
    if (linkId && linkId !== qr.link_id)
      throw invalid(`linkId ${quoted(linkId)} is not the link of QR code ${quoted(body.qrCodeId)}`, 'linkId');
    linkId = qr.link_id;
  }
  let route: string | null = null;
  if (body.clickId !== undefined) {
    // The click names its link and route itself (domain/forwarding.ts): no click row is read,
    // so a conversion right after its click, before the click is written, is attributed too.
    const click = clickIdsFor(masterKey).read(body.clickId);
    if (!click || !(await links.getLink(knex, workspaceId, click.linkId)))
      throw invalid(`clickId ${quoted(body.clickId)} is not a click on a link of this workspace`, 'clickId');
    if (linkId && linkId !== click.linkId)
      throw invalid(`clickId ${quoted(body.clickId)} is a click on another link than ${quoted(linkId)}`, 'clickId');
    linkId = click.linkId;
    route = click.route;
  }
  return { linkId, route };
}

let clickIds: { key: Buffer; ids: ClickIds } | undefined;
const clickIdsFor = (key: Buffer): ClickIds => {
  if (clickIds?.key !== key) clickIds = { key, ids: new ClickIds(key) };
  return clickIds.ids;
};

/**
 * Records a conversion (POST /api/v1/conversions) and raises conversion.created with it. With an
 * idempotency key, a repeat of an earlier request gets that request's first answer, as it was sent.
 */
export async function recordConversion(
  services: OperationServices,
  workspaceId: string,
  requestId: string | null,
  body: ConversionCreate,
  idempotencyKey: string | undefined,
): Promise<{ data: Conversion }> {
  requireConversions(services.config);
  const { knex } = services.db;
  const now = Date.now();
  if (body.eventType === 'custom' && !body.customName)
    throw invalid('customName is required for a custom event', 'customName');
  if (body.eventType !== 'custom' && body.customName !== undefined) {
    throw invalid('customName is only allowed with eventType custom', 'customName');
  }
  if (body.value && !isCurrency(body.value.currency))
    throw invalid(`value.currency ${quoted(body.value.currency)} is not an ISO 4217 currency code`, 'value.currency');
  const metadata = body.metadata === undefined ? null : JSON.stringify(body.metadata);
  if (metadata !== null && Buffer.byteLength(metadata) > MAX_METADATA_BYTES) {
    throw invalid(`metadata may be at most ${MAX_METADATA_BYTES} bytes of JSON`, 'metadata');
  }
  let occurredAt = now;
  if (body.occurredAt !== undefined) {
    occurredAt = Date.parse(body.occurredAt);
    if (!Number.isFinite(occurredAt)) throw invalid('occurredAt must be an ISO 8601 date-time', 'occurredAt');
    if (occurredAt > now + CONVERSION_FUTURE_SKEW_MS)
      throw invalid('occurredAt may not be in the future', 'occurredAt');
    if (occurredAt < now - CONVERSION_RETENTION_DAYS * DAY_MS) {
      throw invalid(
        `occurredAt may not be older than the ${CONVERSION_RETENTION_DAYS}-day conversion retention`,
        'occurredAt',
      );
    }
  }
  const { linkId, route } = await validateReferences(knex, services.masterKey, workspaceId, body);
  const row: conversions.ConversionRow = {
    id: newId('cnv'),
    workspace_id: workspaceId,
    event_type: body.eventType,
    custom_name: body.eventType === 'custom' ? body.customName! : null,
    link_id: linkId,
    route,
    campaign_id: body.campaignId ?? null,
    qr_code_id: body.qrCodeId ?? null,
    amount_minor: body.value ? body.value.amountMinor : null,
    currency: body.value ? body.value.currency : null,
    metadata,
    occurred_at: occurredAt,
    created_at: now,
  };
  const response = { data: presentConversion(row) };
  const hash = requestHash(body);
  const replayed = await conversions.recordConversion(knex, row, {
    idempotency: idempotencyKey
      ? { key: idempotencyKey, requestHash: hash, response: JSON.stringify(response), ttlMs: IDEMPOTENCY_TTL_MS }
      : undefined,
    emit: async () => [
      serviceEvent('conversion.created', { workspaceId, requestId, occurredAt: now, subject: response.data }),
    ],
  });
  return replayed === null ? response : JSON.parse(replayed);
}

/** The query of a conversion summary (GET /api/v1/conversions, and the dashboard's getDashboardConversions). */
export interface ConversionSummaryQuery {
  from?: string;
  to?: string;
  eventType?: string;
  customName?: string;
  linkId?: string;
  campaignId?: string;
  qrCodeId?: string;
}

/**
 * The conversion summary over a window (`GET /api/v1/conversions`, and the dashboard's
 * getDashboardConversions): the same validation and messages for both. With `series`, also the
 * conversions and value of each UTC day of the window with the same filters, read in the same
 * snapshot as the summary (the dashboard's chart), so the days add up to its total.
 */
export async function conversionSummary(
  services: OperationServices,
  workspaceId: string,
  query: ConversionSummaryQuery,
): Promise<{ data: ConversionSummary }>;
export async function conversionSummary(
  services: OperationServices,
  workspaceId: string,
  query: ConversionSummaryQuery,
  opts: { series: true },
): Promise<{ data: ConversionSummary; series: ReturnType<typeof seriesEntries> }>;
export async function conversionSummary(
  services: OperationServices,
  workspaceId: string,
  q: ConversionSummaryQuery,
  opts: { series?: boolean } = {},
) {
  const now = Date.now();
  const parsed = parseWindow(q.from, q.to, now);
  if ('field' in parsed) throw invalid(parsed.message, parsed.field);
  const w = parsed;
  const filters = summaryFilters(q);
  if (opts.series) {
    const read = await services.queries.conversionSummaryWithSeries(workspaceId, w, filters, now);
    return { data: presentSummary(services, read, w, filters, now), series: seriesEntries(read.series, w) };
  }
  return {
    data: presentSummary(
      services,
      await services.queries.conversionSummary(workspaceId, w, filters, now),
      w,
      filters,
      now,
    ),
  };
}

/**
 * The filters of a summary query, under the API's rules and messages (a shared CONVERSIONS
 * report's params are checked by it too).
 */
export function summaryFilters(q: Omit<ConversionSummaryQuery, 'from' | 'to'>): conversions.ConversionFilters {
  if (q.eventType !== undefined && !(EVENT_TYPES as readonly string[]).includes(q.eventType)) {
    throw invalid(`eventType must be one of: ${EVENT_TYPES.join(', ')}`, 'eventType');
  }
  if (q.customName !== undefined && q.eventType !== undefined && q.eventType !== 'custom') {
    throw invalid('customName narrows custom events; it cannot be combined with another eventType', 'customName');
  }
  return {
    eventType: (q.customName !== undefined ? 'custom' : q.eventType) as EventType | undefined,
    customName: q.customName,
    linkId: q.linkId,
    campaignId: q.campaignId,
    qrCodeId: q.qrCodeId,
  };
}

/**
 * The clicks of a rate narrowed to a scope: one QR code's scans, else one link's clicks, else
 * every click of the workspace; null when the clicks could not be read.
 */
function clicksOfScope(
  clicks: ClickCounts | null,
  qrCodeId: string | null | undefined,
  linkId: string | null | undefined,
): number | null {
  if (clicks === null) return null;
  if (qrCodeId) return clicks.byQr.get(qrCodeId) ?? 0;
  return linkId ? (clicks.byLink.get(linkId) ?? 0) : clicks.total;
}

function presentSummary(
  services: OperationServices,
  { tally, clicks, clicksError }: Awaited<ReturnType<OperationServices['queries']['conversionSummary']>>,
  w: Window,
  filters: conversions.ConversionFilters,
  now: number,
): ConversionSummary {
  // Clicks that could not be read leave the rate undefined (clicks_unavailable); the reason goes to the log.
  if (clicksError) services.log.warn({ err: clicksError }, 'clicks could not be read for a conversion rate');
  const byLink = breakdownEntries(tally.byLink);
  const byQr = breakdownEntries(tally.byQr);
  const overallClicks = clicksOfScope(clicks, filters.qrCodeId, filters.linkId);
  const overallConversions = filters.qrCodeId ? (tally.byQr.get(filters.qrCodeId)?.conversions ?? 0) : tally.attributed;
  return {
    windowFrom: iso(w.from)!,
    windowTo: iso(w.to)!,
    total: tally.total,
    attributedConversions: tally.attributed,
    unattributedConversions: tally.total - tally.attributed,
    byEventType: typeEntries(tally),
    byLink: byLink.map((l) => ({
      ...l,
      rate: rateOf(l.conversions, clicks ? (clicks.byLink.get(l.id) ?? 0) : null, w, now),
    })),
    byCampaign: breakdownEntries(tally.byCampaign),
    byQr: byQr.map((x) => ({
      ...x,
      rate: rateOf(x.conversions, clicks ? (clicks.byQr.get(x.id) ?? 0) : null, w, now),
    })),
    value: valueEntries(tally.value),
    rate: rateOf(overallConversions, overallClicks, w, now),
    unavailable: beyondConversionRetention(w, now),
  };
}

/**
 * A goal's report over a window (`GET /api/v1/goals/{id}/report`, and the dashboard's
 * getDashboardGoalReport): 404 for a goal of another workspace.
 */
export async function goalReport(
  services: OperationServices,
  workspaceId: string,
  goalId: string,
  query: { from?: string; to?: string },
): Promise<GoalReport> {
  const { knex } = services.db;
  const goal = await goals.getGoal(knex, goalId);
  if (!goal || goal.workspace_id !== workspaceId) throw notFound('Goal not found');
  const now = Date.now();
  const parsed = parseWindow(query.from, query.to, now);
  if ('field' in parsed) throw invalid(parsed.message, parsed.field);
  const requested = parsed;
  const {
    window: w,
    narrowedByGoal,
    disjoint,
  } = intersectWindow(
    requested,
    goal.window_start === null ? null : Number(goal.window_start),
    goal.window_end === null ? null : Number(goal.window_end),
  );
  const scoped = !!(goal.link_id || goal.qr_code_id || goal.campaign_id);
  const counted = disjoint
    ? null
    : await services.queries.goalTally(
        workspaceId,
        w,
        {
          eventType: goal.type,
          customName: goal.custom_name,
          linkId: goal.link_id,
          qrCodeId: goal.qr_code_id,
          campaignId: goal.campaign_id,
        },
        now,
      );
  if (counted?.clicksError)
    services.log.warn({ err: counted.clicksError }, 'clicks could not be read for a conversion rate');
  const tally = counted?.tally;
  const matched = tally?.total ?? 0;
  const attributed = tally?.attributed ?? 0;
  const valueMap = tally?.value ?? new Map();
  const rateClicks = counted ? clicksOfScope(counted.clicks, goal.qr_code_id, goal.link_id) : 0;
  const rateConversions = goal.qr_code_id ? matched : attributed;
  const scopeObjectMissing = !(await goals.scopeObjectExists(knex, goal));
  const targetCurrency = goal.target_currency;
  return {
    goal: { id: goal.id, name: goal.name, type: goal.type },
    data: {
      goalId: goal.id,
      window: { from: iso(w.from)!, to: iso(w.to)!, narrowedByGoal, disjoint },
      conversions: matched,
      value: valueEntries(valueMap),
      unattributedConversions: scoped ? 0 : matched - attributed,
      unattributedIncluded: !scoped,
      countProgress: goal.target_count === null ? null : progress(Number(goal.target_count), matched),
      valueProgress:
        goal.target_value_minor === null || !targetCurrency
          ? null
          : {
              currency: targetCurrency,
              ...progress(Number(goal.target_value_minor), valueMap.get(targetCurrency)?.valueMinor ?? 0),
            },
      rate: disjoint ? rateOf(0, 0, w, now) : rateOf(rateConversions, rateClicks, w, now),
      definition: { version: Number(goal.definition_version), updatedAt: iso(goal.definition_updated_at)! },
      completeness: { windowTruncatedByRetention: beyondConversionRetention(w, now), scopeObjectMissing },
    },
  };
}
