import type { Knex } from 'knex';
import type { Migration } from '../types.js';

const REVISION_EVENTS = [
  ['insert', 'new table as new_rows'],
  ['delete', 'old table as old_rows'],
  ['update', 'old table as old_rows new table as new_rows'],
] as const;

/**
 * `zaaknotitie` (Zaken API 1.7): the notes on a zaak, gone with the zaak (zrc-023), indexed on what the
 * list filters by. Its timestamps are kept to the millisecond, as the API shows them, so a value read
 * from a note finds it again in `?aanmaakdatum=`. `tekst` has no length limit: a hash index serves its
 * exact filter (a B-tree refuses long values). A change to a note renews its zaak's revision, as a
 * change to any record of the zaak does (`core/005_zaak_revision`).
 */
export const zaaknotitieMigration: Migration = {
  name: 'core/014_zaaknotitie',
  async up(knex: Knex) {
    await knex.schema.createTable('zaaknotitie', (t) => {
      t.bigIncrements('id');
      t.uuid('uuid').notNullable().unique();
      t.bigInteger('zaak_id').notNullable().references('id').inTable('zaak').onDelete('CASCADE');
      t.index(['zaak_id', 'id']);
      t.string('onderwerp', 255).notNullable().index();
      t.text('tekst').notNullable();
      t.string('aangemaakt_door', 255).notNullable().defaultTo('').index();
      t.string('notitie_type', 20).notNullable().defaultTo('intern').index();
      t.string('status', 20).notNullable().defaultTo('concept').index();
      t.timestamp('aanmaakdatum', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now()).index();
      t.timestamp('wijzigingsdatum', { useTz: true, precision: 3 }).notNullable().defaultTo(knex.fn.now()).index();
    });
    await knex.raw('create index zaaknotitie_tekst_hash_index on zaaknotitie using hash (tekst)');
    for (const [event, referencing] of REVISION_EVENTS) {
      await knex.raw(
        `create trigger zaaknotitie_zaak_revision_${event} after ${event} on zaaknotitie referencing ${referencing} for each statement execute function zaak_revision_of_records()`,
      );
    }
    await knex.raw('create trigger zaaknotitie_zaak_revision_truncate after truncate on zaaknotitie for each statement execute function zaak_revision_of_truncate()');
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('zaaknotitie');
  },
};
