import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * The transactional outbox: deliveries to other registries, written in the transaction of the change
 * they announce, removed once delivered. `next_attempt_at` was both the backoff and the claim lease
 * until `core/011_outbox_lease` gave the lease a column of its own.
 */
export const outboxMigration: Migration = {
  name: 'core/003_outbox',
  async up(knex: Knex) {
    await knex.schema.createTable('outbox', (t) => {
      t.bigIncrements('id');
      t.string('kind', 100).notNullable();
      t.string('target', 300).notNullable();
      t.string('ordering_key', 1000);
      t.jsonb('payload').notNullable();
      t.string('status', 10).notNullable().defaultTo('pending');
      t.integer('attempts').notNullable().defaultTo(0);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.uuid('claim');
      t.text('last_error');
    });
    // What the dispatcher claims next, and whether an earlier delivery of the same key is still pending.
    await knex.raw(`create index outbox_due on outbox (next_attempt_at, id) where status = 'pending'`);
    await knex.raw(`create index outbox_pending_key on outbox (ordering_key, id) where status = 'pending'`);
    await knex.raw(`create index outbox_failed on outbox (id) where status = 'failed'`);
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('outbox');
  },
};
