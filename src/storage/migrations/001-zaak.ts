import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/** Role identification keys that GET /zaken filters on (`rol__betrokkeneIdentificatie__*`). */
export const ROL_IDENTIFICATION_KEYS = [
  'inpBsn',
  'anpIdentificatie',
  'inpA_nummer',
  'innNnpId',
  'annIdentificatie',
  'vestigingsNummer',
  'identificatie',
] as const;

/** The zaak table, the rol table its filters need, and the sequence behind generated identificaties. */
export const zaakMigration: Migration = {
  name: 'core/001_zaak',
  async up(knex: Knex) {
    await knex.schema.createTable('zaak', (t) => {
      t.bigIncrements('id');
      t.uuid('uuid').notNullable().unique();
      t.string('identificatie', 40).notNullable();
      t.string('bronorganisatie', 9).notNullable();
      t.string('omschrijving', 80).notNullable().defaultTo('');
      t.string('toelichting', 1000).notNullable().defaultTo('');
      t.string('zaaktype', 1000).notNullable().index();
      t.date('registratiedatum').notNullable().index();
      t.string('verantwoordelijke_organisatie', 9).notNullable();
      t.date('startdatum').notNullable().index();
      t.date('einddatum').index();
      t.date('einddatum_gepland').index();
      t.date('uiterlijke_einddatum_afdoening').index();
      t.date('publicatiedatum').index();
      t.string('communicatiekanaal', 1000).notNullable().defaultTo('');
      t.jsonb('producten_of_diensten').notNullable().defaultTo('[]');
      t.string('vertrouwelijkheidaanduiding', 20).notNullable();
      // The rank (openbaar = 1 … zeer_geheim = 8) makes "at most this confidential" an indexed comparison.
      t.smallint('vertrouwelijkheid_rank').notNullable().index();
      t.string('betalingsindicatie', 12).notNullable().defaultTo('');
      t.timestamp('laatste_betaaldatum', { useTz: true });
      t.jsonb('zaakgeometrie');
      t.string('verlenging_reden', 200).notNullable().defaultTo('');
      t.string('verlenging_duur', 64);
      t.boolean('opschorting_indicatie').notNullable().defaultTo(false);
      t.string('opschorting_reden', 200).notNullable().defaultTo('');
      t.string('selectielijstklasse', 1000).notNullable().defaultTo('');
      t.bigInteger('hoofdzaak_id').references('id').inTable('zaak').onDelete('CASCADE').index();
      t.jsonb('relevante_andere_zaken').notNullable().defaultTo('[]');
      t.jsonb('kenmerken').notNullable().defaultTo('[]');
      t.string('archiefnominatie', 20).index();
      t.string('archiefstatus', 40).notNullable().defaultTo('nog_te_archiveren').index();
      t.date('archiefactiedatum').index();
      t.string('opdrachtgevende_organisatie', 9).notNullable().defaultTo('');
      t.string('processobjectaard', 200);
      t.date('startdatum_bewaartermijn');
      t.string('processobject_datumkenmerk', 250).notNullable().defaultTo('');
      t.string('processobject_identificatie', 250).notNullable().defaultTo('');
      t.string('processobject_objecttype', 250).notNullable().defaultTo('');
      t.string('processobject_registratie', 250).notNullable().defaultTo('');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.unique(['bronorganisatie', 'identificatie'], { indexName: 'zaak_bronorganisatie_identificatie_unique' });
      t.index(['identificatie']);
      t.index(['zaaktype', 'vertrouwelijkheid_rank']);
    });
    await knex.raw('create sequence zaak_identificatie_seq');

    await knex.schema.createTable('rol', (t) => {
      t.bigIncrements('id');
      t.uuid('uuid').notNullable().unique();
      t.bigInteger('zaak_id').notNullable().references('id').inTable('zaak').onDelete('CASCADE').index();
      t.string('betrokkene', 1000).notNullable().defaultTo('');
      t.string('betrokkene_type', 30).notNullable();
      t.string('afwijkende_naam_betrokkene', 625).notNullable().defaultTo('');
      t.string('roltype', 1000).notNullable();
      t.string('omschrijving', 100).notNullable().defaultTo('');
      t.string('omschrijving_generiek', 40).notNullable().defaultTo('');
      t.string('roltoelichting', 1000).notNullable().defaultTo('');
      t.timestamp('registratiedatum', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.string('indicatie_machtiging', 20).notNullable().defaultTo('');
      t.jsonb('contactpersoon_rol');
      t.jsonb('betrokkene_identificatie');
      t.index(['betrokkene_type', 'zaak_id']);
      t.index(['betrokkene']);
      t.index(['omschrijving_generiek', 'zaak_id']);
    });
    for (const key of ROL_IDENTIFICATION_KEYS) {
      await knex.raw(
        `create index ?? on rol (betrokkene_type, (betrokkene_identificatie ->> '${key}'))`,
        [`rol_identificatie_${key.toLowerCase()}_index`],
      );
    }
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('rol');
    await knex.raw('drop sequence zaak_identificatie_seq');
    await knex.schema.dropTable('zaak');
  },
};

