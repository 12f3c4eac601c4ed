import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * Lists filtered by zaaktype (the filter every client uses), alone or with the archive filters of
 * Zaken API 1.5: `(zaaktype, id)` pages in id order without reading the zaken of other types, and
 * `(zaaktype, archiefstatus, id)` counts and pages `zaaktype` + `archiefstatus` from the index alone.
 * The first replaces the plain zaaktype index, which it covers.
 */
export const listIndexesMigration: Migration = {
  name: 'core/007_list_indexes',
  async up(knex: Knex) {
    await knex.raw('create index zaak_zaaktype_id_index on zaak (zaaktype, id)');
    await knex.raw('create index zaak_zaaktype_archiefstatus_id_index on zaak (zaaktype, archiefstatus, id)');
    await knex.raw('drop index zaak_zaaktype_index');
  },
  async down(knex: Knex) {
    await knex.raw('create index zaak_zaaktype_index on zaak (zaaktype)');
    await knex.raw('drop index zaak_zaaktype_archiefstatus_id_index');
    await knex.raw('drop index zaak_zaaktype_id_index');
  },
};
