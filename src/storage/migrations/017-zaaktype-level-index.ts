import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * The zaken of one zaaktype at one confidentiality level in id order: an application limited to a
 * few zaaktypen walks, per zaaktype, only the levels it may read, and stops at the page's end. Along
 * `(zaaktype, id)` a walk passed every zaak of the type it may not read (a zaaktype of 10,000
 * zaakvertrouwelijk zaken and a few openbaar ones: 10,000 rows for an application that may read
 * openbaar). Replaces `(zaaktype, vertrouwelijkheid_rank)`, which this index serves too.
 */
export const zaaktypeLevelIndexMigration: Migration = {
  name: 'core/017_zaaktype_level_index',
  async up(knex: Knex) {
    await knex.raw('create index zaak_zaaktype_level_id_index on zaak (zaaktype, vertrouwelijkheid_rank, id)');
    await knex.raw('drop index zaak_zaaktype_vertrouwelijkheid_rank_index');
  },
  async down(knex: Knex) {
    await knex.raw('create index zaak_zaaktype_vertrouwelijkheid_rank_index on zaak (zaaktype, vertrouwelijkheid_rank)');
    await knex.raw('drop index zaak_zaaktype_level_id_index');
  },
};
