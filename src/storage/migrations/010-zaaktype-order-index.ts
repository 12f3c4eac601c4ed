import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * The pages of an application limited to a few zaaktypen are merged from one walk per zaaktype in id
 * order. With the confidentiality beside each id those walks read the index alone. It replaces the
 * `(zaaktype, id)` index of `core/007_list_indexes`, which it serves as well.
 */
export const zaaktypeOrderIndexMigration: Migration = {
  name: 'core/010_zaaktype_order_index',
  async up(knex: Knex) {
    await knex.raw('create index zaak_zaaktype_id_access_index on zaak (zaaktype, id) include (vertrouwelijkheid_rank)');
    await knex.raw('drop index zaak_zaaktype_id_index');
  },
  async down(knex: Knex) {
    await knex.raw('create index zaak_zaaktype_id_index on zaak (zaaktype, id)');
    await knex.raw('drop index zaak_zaaktype_id_access_index');
  },
};
