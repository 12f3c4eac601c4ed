import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * The lists of an application limited to some zaaktypen (most applications): a page walks zaak ids
 * in order and keeps those the client may see. With the zaaktype and confidentiality beside each id
 * in the index, that walk reads the index alone instead of every skipped zaak's row (page 10 of an
 * application with 10 of 100 zaaktypen at 1M zaken: 4–6 ms → under 2 ms in the database).
 */
export const accessOrderIndexMigration: Migration = {
  name: 'core/009_access_order_index',
  async up(knex: Knex) {
    await knex.raw('create index zaak_id_access_index on zaak (id) include (zaaktype, vertrouwelijkheid_rank)');
  },
  async down(knex: Knex) {
    await knex.raw('drop index zaak_id_access_index');
  },
};
