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

/**
 * `zaak.revision`: a new value from one sequence in the transaction of every change to a zaak, to any
 * of its records, or to its deelzaken (its `deelzaken` list), kept by triggers whatever path writes
 * (API, services, SQL). Read in the same statement as the zaak, it tells whether anything shown for the
 * zaak or its records changed since: what ETags are remembered by. No round trip is added to a write.
 */
export const zaakRevisionMigration: Migration = {
  name: 'core/005_zaak_revision',
  async up(knex: Knex) {
    await knex.raw('create sequence zaak_revision_seq');
    await knex.raw(`alter table zaak add column revision bigint not null default nextval('zaak_revision_seq')`);
    await knex.raw(`
      create function zaak_revision_renew() returns trigger language plpgsql as $$
      begin
        new.revision := nextval('zaak_revision_seq');
        return new;
      end $$`);
    await knex.raw('create trigger zaak_revision_renew before update on zaak for each row execute function zaak_revision_renew()');
    // Only the statements of the event that fired are planned, so each names the transition tables it has.
    await knex.raw(`
      create function zaak_revision_of_records() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          update zaak set revision = nextval('zaak_revision_seq') where id in (select zaak_id from new_rows);
        elsif tg_op = 'DELETE' then
          update zaak set revision = nextval('zaak_revision_seq') where id in (select zaak_id from old_rows);
        else
          update zaak set revision = nextval('zaak_revision_seq') where id in (select zaak_id from new_rows union select zaak_id from old_rows);
        end if;
        return null;
      end $$`);
    for (const table of ZAAK_RECORD_TABLES) {
      for (const [event, referencing] of [
        ['insert', 'new table as new_rows'],
        ['delete', 'old table as old_rows'],
        ['update', 'old table as old_rows new table as new_rows'],
      ]) {
        await knex.raw(
          `create trigger ${table}_zaak_revision_${event} after ${event} on ${table} referencing ${referencing} for each statement execute function zaak_revision_of_records()`,
        );
      }
    }
    // A deelzaak that comes, goes or moves changes its hoofdzaak's `deelzaken`. The guard ends the
    // recursion: renewing the hoofdzaken is an update of zaak rows whose hoofdzaak does not change.
    await knex.raw(`
      create function zaak_revision_of_hoofdzaken() returns trigger language plpgsql as $$
      declare
        hoofdzaken bigint[];
      begin
        if tg_op = 'INSERT' then
          select array_agg(distinct hoofdzaak_id) into hoofdzaken from new_rows where hoofdzaak_id is not null;
        elsif tg_op = 'DELETE' then
          select array_agg(distinct hoofdzaak_id) into hoofdzaken from old_rows where hoofdzaak_id is not null;
        else
          select array_agg(distinct h) into hoofdzaken from (
            select o.hoofdzaak_id, n.hoofdzaak_id from old_rows o join new_rows n using (id) where o.hoofdzaak_id is distinct from n.hoofdzaak_id
          ) as moved(a, b), lateral unnest(array[a, b]) as h where h is not null;
        end if;
        if hoofdzaken is not null then
          update zaak set revision = nextval('zaak_revision_seq') where id = any(hoofdzaken);
        end if;
        return null;
      end $$`);
    for (const [event, referencing] of [
      ['insert', 'new table as new_rows'],
      ['delete', 'old table as old_rows'],
      ['update', 'old table as old_rows new table as new_rows'],
    ]) {
      await knex.raw(
        `create trigger zaak_revision_hoofdzaak_${event} after ${event} on zaak referencing ${referencing} for each statement execute function zaak_revision_of_hoofdzaken()`,
      );
    }
  },
  async down(knex: Knex) {
    for (const event of ['insert', 'delete', 'update']) {
      await knex.raw(`drop trigger zaak_revision_hoofdzaak_${event} on zaak`);
      for (const table of ZAAK_RECORD_TABLES) await knex.raw(`drop trigger ${table}_zaak_revision_${event} on ${table}`);
    }
    await knex.raw('drop trigger zaak_revision_renew on zaak');
    await knex.raw('drop function zaak_revision_of_hoofdzaken()');
    await knex.raw('drop function zaak_revision_of_records()');
    await knex.raw('drop function zaak_revision_renew()');
    await knex.raw('alter table zaak drop column revision');
    await knex.raw('drop sequence zaak_revision_seq');
  },
};
