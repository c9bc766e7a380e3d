// Migrations are listed here rather than discovered on disk, so they load the same way under
// tsx, vitest and a bundled build.
import type { Knex } from 'knex';
import * as core from './20261122000000_core.ts';
import * as clicks from './20261122010000_clicks.ts';
import * as conversions from './20261122020000_conversions.ts';
import * as webhooks from './20261122030000_webhooks.ts';
import * as webhooksMore from './20261122040000_webhooks_more.ts';
import * as webhookDelivery from './20261122050000_webhook_delivery.ts';
import * as conversionBlocks from './20261122060000_conversion_blocks.ts';
import * as linkClicksFromDaily from './20261122070000_link_clicks_from_daily.ts';
import * as dailyClicksByWorkspace from './20261122080000_daily_clicks_by_workspace.ts';
import * as clickWindows from './20261122090000_click_windows.ts';
import * as linksRedirectIndex from './20261123000000_links_redirect_index.ts';
import * as clicksRetentionById from './20261123010000_clicks_retention_by_id.ts';
import * as conversionValueTotals from './20261124000000_conversion_value_totals.ts';
import * as accounts from './20261124010000_accounts.ts';
import * as dashboardAggregates from './20261125000000_dashboard_aggregates.ts';
import * as clickFolds from './20261126000000_click_folds.ts';
import * as shortSearch from './20261127000000_short_search.ts';
import * as conversionTypeBlocks from './20261127010000_conversion_type_blocks.ts';
import * as webhookDeliveryLog from './20261128000000_webhook_delivery_log.ts';
import * as reports from './20261130000000_reports.ts';
import * as bioPages from './20261201000000_bio_pages.ts';
import * as conversionBlockReads from './20261202000000_conversion_block_reads.ts';
import * as deletedLinksIndex from './20261202010000_deleted_links_index.ts';
import * as invitations from './20261203000000_invitations.ts';
import * as domainClaims from './20261203010000_domain_claims.ts';
import * as linkRouting from './20261204000000_link_routing.ts';
import * as appLinks from './20261215000000_app_links.ts';
import * as clickCity from './20261204050000_click_city.ts';
import * as qrCodesByWorkspace from './20261229100000_qr_codes_by_workspace.ts';
import * as liveLinkCounts from './20261230000000_live_link_counts.ts';
import * as foldCities from './20261231000000_fold_cities.ts';
import * as apiKeyNames from './20270101000000_api_key_names.ts';
import * as partitionedEvents from './20270102000000_partitioned_events.ts';
import * as secondFactors from './20270104000000_second_factors.ts';
import * as sso from './20270106000000_sso.ts';
import * as passkeys from './20270107000000_passkeys.ts';
import * as auditLog from './20270103000000_audit_log.ts';
import * as mailAndSessions from './20270105000000_mail_and_sessions.ts';

const migrations: Record<string, { up(k: Knex): Promise<void>; down(k: Knex): Promise<void> }> = {
  '20261122000000_core': core,
  '20261122010000_clicks': clicks,
  '20261122020000_conversions': conversions,
  '20261122030000_webhooks': webhooks,
  '20261122040000_webhooks_more': webhooksMore,
  '20261122050000_webhook_delivery': webhookDelivery,
  '20261122060000_conversion_blocks': conversionBlocks,
  '20261122070000_link_clicks_from_daily': linkClicksFromDaily,
  '20261122080000_daily_clicks_by_workspace': dailyClicksByWorkspace,
  '20261122090000_click_windows': clickWindows,
  '20261123000000_links_redirect_index': linksRedirectIndex,
  '20261123010000_clicks_retention_by_id': clicksRetentionById,
  '20261124000000_conversion_value_totals': conversionValueTotals,
  '20261124010000_accounts': accounts,
  '20261125000000_dashboard_aggregates': dashboardAggregates,
  '20261126000000_click_folds': clickFolds,
  '20261127000000_short_search': shortSearch,
  '20261127010000_conversion_type_blocks': conversionTypeBlocks,
  '20261128000000_webhook_delivery_log': webhookDeliveryLog,
  '20261130000000_reports': reports,
  '20261201000000_bio_pages': bioPages,
  '20261202000000_conversion_block_reads': conversionBlockReads,
  '20261202010000_deleted_links_index': deletedLinksIndex,
  '20261203000000_invitations': invitations,
  '20261203010000_domain_claims': domainClaims,
  '20261204000000_link_routing': linkRouting,
  '20261215000000_app_links': appLinks,
  '20261204050000_click_city': clickCity,
  '20261229100000_qr_codes_by_workspace': qrCodesByWorkspace,
  '20261230000000_live_link_counts': liveLinkCounts,
  '20261231000000_fold_cities': foldCities,
  '20270101000000_api_key_names': apiKeyNames,
  '20270102000000_partitioned_events': partitionedEvents,
  '20270104000000_second_factors': secondFactors,
  '20270106000000_sso': sso,
  '20270103000000_audit_log': auditLog,
  '20270105000000_mail_and_sessions': mailAndSessions,
  '20270107000000_passkeys': passkeys,
};

export const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    return Object.keys(migrations).sort();
  },
  getMigrationName(name) {
    return name;
  },
  async getMigration(name) {
    return migrations[name];
  },
};
