// Whole rows for suites that write the links and goals tables straight through knex or a
// repository: every column a caller does not name takes the value a plain new link or goal has,
// so a suite states only what its case is about.
import type { LinkRow } from '../../src/db/repos/links';
import type { GoalDefinition } from '../../src/db/repos/goals';

/** An ACTIVE, temporary link with no limits, preview or password, created and updated now. */
export function linkRow(
  fields: Pick<LinkRow, 'id' | 'workspace_id' | 'created_by' | 'slug' | 'original_url'> & Partial<LinkRow>,
): LinkRow {
  const now = Date.now();
  return {
    domain_id: null,
    domain_key: '',
    title: null,
    status: 'ACTIVE',
    policy_locked: false,
    redirect_type: 'TEMPORARY',
    expires_at: null,
    expired_url: null,
    click_limit: null,
    start_at: null,
    end_at: null,
    password_hash: null,
    preview_title: null,
    preview_description: null,
    preview_image: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    ...fields,
  };
}

/** A goal with no scope, target or window: it counts every conversion of its type. */
export function goalDefinition(
  fields: Pick<GoalDefinition, 'name' | 'type'> & Partial<GoalDefinition>,
): GoalDefinition {
  return {
    custom_name: null,
    link_id: null,
    qr_code_id: null,
    campaign_id: null,
    target_count: null,
    target_value_minor: null,
    target_currency: null,
    window_start: null,
    window_end: null,
    ...fields,
  };
}
