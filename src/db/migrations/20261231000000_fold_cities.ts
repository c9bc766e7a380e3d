// A link's analytics gain its top cities: the click fold (src/db/repos/click-folds.ts) counts a
// `city` dimension from here on. Rows folded before have no city counts, and a reader would take
// them as complete (their click counts match), so they go: the fold's next run folds the 90 days
// of raw clicks again, in the background, and until a day is folded the analytics read its raw
// clicks. Nothing is lost: the raw clicks are the source of every folded row.
//
// Frozen: it imports nothing of the project.
import type { Knex } from 'knex';

const FOLDED = [
  'link_breakdown_pieces',
  'link_day_breakdowns',
  'link_block_breakdowns',
  'click_fold_blocks',
  'click_folds',
];

export async function up(knex: Knex): Promise<void> {
  for (const table of FOLDED) await knex(table).delete();
}

export async function down(_knex: Knex): Promise<void> {
  // The older fold reads rows with a city dimension as before: nothing to undo.
}
