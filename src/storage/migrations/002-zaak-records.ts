import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/** Every record of a zaak has these: its own id and uuid, and its zaak (gone with the zaak: zrc-023). */
function recordOfZaak(t: Knex.CreateTableBuilder): void {
  t.bigIncrements('id');
  t.uuid('uuid').notNullable().unique();
  t.bigInteger('zaak_id').notNullable().references('id').inTable('zaak').onDelete('CASCADE');
}

/** The records of a zaak besides its rollen, and its audit trail; indexed on what the lists filter by. */
export const zaakRecordsMigration: Migration = {
  name: 'core/002_zaak_records',
  async up(knex: Knex) {
    await knex.schema.createTable('status', (t) => {
      recordOfZaak(t);
      t.string('statustype', 1000).notNullable().index();
      t.timestamp('datum_status_gezet', { useTz: true }).notNullable();
      t.string('statustoelichting', 1000).notNullable().defaultTo('');
      t.bigInteger('gezetdoor_id').references('id').inTable('rol').onDelete('SET NULL').index();
      // The latest status of a zaak (Zaak.status, indicatieLaatstGezetteStatus) is an index scan.
      t.index(['zaak_id', 'datum_status_gezet', 'id']);
    });
    await knex.schema.createTable('resultaat', (t) => {
      recordOfZaak(t);
      t.unique(['zaak_id'], { indexName: 'resultaat_zaak_unique' });
      t.string('resultaattype', 1000).notNullable().index();
      t.string('toelichting', 1000).notNullable().defaultTo('');
    });
    await knex.schema.createTable('zaakobject', (t) => {
      recordOfZaak(t);
      t.index(['zaak_id', 'id']);
      t.string('object', 1000).notNullable().defaultTo('').index();
      t.string('zaakobjecttype', 1000).notNullable().defaultTo('');
      t.string('object_type', 100).notNullable().index();
      t.string('object_type_overige', 100).notNullable().defaultTo('');
      t.jsonb('object_type_overige_definitie');
      t.string('relatieomschrijving', 80).notNullable().defaultTo('');
      t.jsonb('object_identificatie');
    });
    await knex.schema.createTable('zaakinformatieobject', (t) => {
      recordOfZaak(t);
      t.string('informatieobject', 1000).notNullable().index();
      t.unique(['zaak_id', 'informatieobject'], { indexName: 'zaakinformatieobject_zaak_informatieobject_unique' });
      t.string('aard_relatie', 20).notNullable().defaultTo('hoort_bij');
      t.string('titel', 200).notNullable().defaultTo('');
      t.text('beschrijving').notNullable().defaultTo('');
      t.timestamp('registratiedatum', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('vernietigingsdatum', { useTz: true });
      t.bigInteger('status_id').references('id').inTable('status').onDelete('SET NULL').index();
    });
    await knex.schema.createTable('zaakeigenschap', (t) => {
      recordOfZaak(t);
      t.index(['zaak_id', 'id']);
      t.string('eigenschap', 1000).notNullable();
      t.string('naam', 255).notNullable().defaultTo('');
      t.text('waarde').notNullable().defaultTo('');
    });
    await knex.schema.createTable('klantcontact', (t) => {
      recordOfZaak(t);
      t.index(['zaak_id', 'id']);
      t.string('identificatie', 14).notNullable();
      t.timestamp('datumtijd', { useTz: true }).notNullable();
      t.string('kanaal', 20).notNullable().defaultTo('');
      t.string('onderwerp', 200).notNullable().defaultTo('');
      t.string('toelichting', 1000).notNullable().defaultTo('');
    });
    await knex.raw('create sequence klantcontact_identificatie_seq');
    await knex.schema.createTable('zaakcontactmoment', (t) => {
      recordOfZaak(t);
      t.index(['zaak_id', 'id']);
      t.string('contactmoment', 1000).notNullable().index();
    });
    await knex.schema.createTable('zaakverzoek', (t) => {
      recordOfZaak(t);
      t.index(['zaak_id', 'id']);
      t.string('verzoek', 1000).notNullable().index();
    });
    await knex.schema.createTable('zaakbesluit', (t) => {
      recordOfZaak(t);
      t.index(['zaak_id', 'id']);
      t.string('besluit', 1000).notNullable().index();
    });
    await knex.schema.createTable('audittrail', (t) => {
      recordOfZaak(t);
      t.index(['zaak_id', 'id']);
      t.string('bron', 50).notNullable();
      t.string('applicatie_id', 100).notNullable().defaultTo('');
      t.string('applicatie_weergave', 200).notNullable().defaultTo('');
      t.string('gebruikers_id', 255).notNullable().defaultTo('');
      t.string('gebruikers_weergave', 255).notNullable().defaultTo('');
      t.string('actie', 50).notNullable();
      t.string('actie_weergave', 200).notNullable().defaultTo('');
      t.smallint('resultaat').notNullable();
      t.string('hoofd_object', 1000).notNullable();
      t.string('resource', 50).notNullable();
      t.string('resource_url', 1000).notNullable();
      t.text('toelichting').notNullable().defaultTo('');
      t.string('resource_weergave', 200).notNullable().defaultTo('');
      t.timestamp('aanmaakdatum', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.jsonb('wijzigingen').notNullable();
    });
    await knex.schema.alterTable('rol', (t) => {
      t.index(['roltype']);
      t.index(['omschrijving']);
    });
    // At most one initiator and one zaakcoordinator per zaak, also under concurrent writes.
    await knex.raw(
      "create unique index rol_zaak_single_role_unique on rol (zaak_id, omschrijving_generiek) where omschrijving_generiek in ('initiator', 'zaakcoordinator')",
    );
  },
  async down(knex: Knex) {
    await knex.raw('drop index rol_zaak_single_role_unique');
    await knex.schema.alterTable('rol', (t) => {
      t.dropIndex(['roltype']);
      t.dropIndex(['omschrijving']);
    });
    for (const table of ['audittrail', 'zaakbesluit', 'zaakverzoek', 'zaakcontactmoment', 'klantcontact', 'zaakeigenschap', 'zaakinformatieobject', 'zaakobject', 'resultaat', 'status']) {
      await knex.schema.dropTable(table);
    }
    await knex.raw('drop sequence klantcontact_identificatie_seq');
  },
};
