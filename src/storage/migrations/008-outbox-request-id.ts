import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/** The id of the request that enqueued a delivery: sent as `X-Request-Id` on it, and on its log lines. */
export const outboxRequestIdMigration: Migration = {
  name: 'core/008_outbox_request_id',
  async up(knex: Knex) {
    await knex.schema.alterTable('outbox', (t) => t.text('request_id'));
  },
  async down(knex: Knex) {
    await knex.schema.alterTable('outbox', (t) => t.dropColumn('request_id'));
  },
};
