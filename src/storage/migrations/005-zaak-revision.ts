import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/** The tables whose rows belong to a zaak and appear in its representation or its records'. */
export const ZAAK_RECORD_TABLES = [
  'status',
  'resultaat',
  'rol',
  'zaakobject',
  'zaakinformatieobject',
  'zaakeigenschap',
  'klantcontact',
  'zaakcontactmoment',
  'zaakverzoek',
  'zaakbesluit',
];

const EVENTS = [
  ['insert', 'new table as new_rows'],
  ['delete', 'old table as old_rows'],
  ['update', 'old table as old_rows new table as new_rows'],
] as const;

/**
 * `zaak_revision`: per zaak a new value from one sequence in the transaction of every change to the
 * zaak, to any of its records, or to its deelzaken (its `deelzaken` list), kept by triggers whatever
 * path writes (API, services, SQL). A narrow table of its own: renewing it never rewrites the wide zaak
 * row or its many indexes, nor waits on the zaak row's lock. Read in the same statement as the zaak, it
 * tells whether anything shown for the zaak or its records changed: what ETags are remembered by.
 */
export const zaakRevisionMigration: Migration = {
  name: 'core/005_zaak_revision',
  async up(knex: Knex) {
    await knex.raw('create sequence zaak_revision_seq');
    await knex.raw(`
      create table zaak_revision (
        zaak_id bigint primary key references zaak (id) on delete cascade,
        revision bigint not null default nextval('zaak_revision_seq')
      ) with (fillfactor = 50)`);
    await knex.raw('insert into zaak_revision (zaak_id) select id from zaak');
    await knex.raw(`
      create function zaak_revision_renew(zaken bigint[]) returns void language sql as $$
        update zaak_revision set revision = nextval('zaak_revision_seq') where zaak_id = any(zaken)
      $$`);
    // Only the statements of the event that fired are planned, so each names the transition tables it has.
    await knex.raw(`
      create function zaak_revision_of_records() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform zaak_revision_renew(array(select distinct zaak_id from new_rows));
        elsif tg_op = 'DELETE' then
          perform zaak_revision_renew(array(select distinct zaak_id from old_rows));
        else
          perform zaak_revision_renew(array(select zaak_id from new_rows union select zaak_id from old_rows));
        end if;
        return null;
      end $$`);
    for (const table of ZAAK_RECORD_TABLES) {
      for (const [event, referencing] of EVENTS) {
        await knex.raw(
          `create trigger ${table}_zaak_revision_${event} after ${event} on ${table} referencing ${referencing} for each statement execute function zaak_revision_of_records()`,
        );
      }
    }
    // A record table emptied at once (TRUNCATE has no transition table): every revision is renewed.
    await knex.raw(`
      create function zaak_revision_of_truncate() returns trigger language plpgsql as $$
      begin
        update zaak_revision set revision = nextval('zaak_revision_seq');
        return null;
      end $$`);
    for (const table of ZAAK_RECORD_TABLES) {
      await knex.raw(`create trigger ${table}_zaak_revision_truncate after truncate on ${table} for each statement execute function zaak_revision_of_truncate()`);
    }
    // The zaak itself: a new zaak gets its row, a changed one a new revision, and a deelzaak that
    // comes, goes or moves changes its hoofdzaak's `deelzaken`.
    await knex.raw(`
      create function zaak_revision_of_zaken() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into zaak_revision (zaak_id) select id from new_rows;
          perform zaak_revision_renew(array(select distinct hoofdzaak_id from new_rows where hoofdzaak_id is not null));
        elsif tg_op = 'DELETE' then
          perform zaak_revision_renew(array(select distinct hoofdzaak_id from old_rows where hoofdzaak_id is not null));
        else
          perform zaak_revision_renew(array(
            select id from new_rows
            union select o.hoofdzaak_id from old_rows o join new_rows n using (id) where o.hoofdzaak_id is distinct from n.hoofdzaak_id
            union select n.hoofdzaak_id from old_rows o join new_rows n using (id) where o.hoofdzaak_id is distinct from n.hoofdzaak_id
          ));
        end if;
        return null;
      end $$`);
    for (const [event, referencing] of EVENTS) {
      await knex.raw(`create trigger zaak_revision_${event} after ${event} on zaak referencing ${referencing} for each statement execute function zaak_revision_of_zaken()`);
    }
  },
  async down(knex: Knex) {
    for (const [event] of EVENTS) {
      await knex.raw(`drop trigger zaak_revision_${event} on zaak`);
      for (const table of ZAAK_RECORD_TABLES) await knex.raw(`drop trigger ${table}_zaak_revision_${event} on ${table}`);
    }
    for (const table of ZAAK_RECORD_TABLES) await knex.raw(`drop trigger ${table}_zaak_revision_truncate on ${table}`);
    await knex.raw('drop function zaak_revision_of_truncate()');
    await knex.raw('drop function zaak_revision_of_zaken()');
    await knex.raw('drop function zaak_revision_of_records()');
    await knex.raw('drop function zaak_revision_renew(bigint[])');
    await knex.raw('drop table zaak_revision');
    await knex.raw('drop sequence zaak_revision_seq');
  },
};
