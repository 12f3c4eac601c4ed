import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * A claim's lease gets a column of its own, outside every index: claiming a row then changes no
 * indexed column and PostgreSQL can update it in place on its page (a HOT update), without new
 * entries in the outbox's three indexes. `next_attempt_at` keeps the backoff alone. The free space
 * those updates need is left on each page by a lower fill factor; a row lives there only until it
 * is delivered.
 */
export const outboxLeaseMigration: Migration = {
  name: 'core/011_outbox_lease',
  async up(knex: Knex) {
    await knex.schema.alterTable('outbox', (t) => t.timestamp('leased_until', { useTz: true }));
    await knex.raw('update outbox set leased_until = next_attempt_at where claim is not null');
    await knex.raw('alter table outbox set (fillfactor = 50)');
  },
  async down(knex: Knex) {
    await knex.raw('update outbox set next_attempt_at = greatest(next_attempt_at, leased_until) where claim is not null');
    await knex.raw('alter table outbox reset (fillfactor)');
    await knex.schema.alterTable('outbox', (t) => t.dropColumn('leased_until'));
  },
};
