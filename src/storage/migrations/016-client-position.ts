import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * The WAL position of each client's last write, for reads from replicas (read-your-writes): written
 * after each commit and read before each safe read, on the primary only. Unlogged: it costs no WAL
 * and is not replicated; after a crash of the primary it is empty, and reads wait for no position.
 */
export const clientPositionMigration: Migration = {
  name: 'core/016_client_position',
  async up(knex: Knex) {
    await knex.raw('create unlogged table zaakregister_client_position (client_id text primary key, lsn pg_lsn not null)');
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('zaakregister_client_position');
  },
};
