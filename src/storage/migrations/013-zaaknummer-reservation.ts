import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * Zaaknummers reserved by clients (`POST /zaaknummer_reserveren`) for zaken of one bronorganisatie
 * that they create later:
 *
 * - `zaaknummer_reservation`: each reserved number with its bronorganisatie, when and by which
 *   client. Rows stay: a reservation does not expire, and its number is never issued otherwise.
 * - `zaaknummer_reserve(organisatie, n, client)`: `n` new numbers of `zaak_next_identificatie`'s form
 *   from its sequence (so never one a zaak is generated with), without those a zaak already has.
 * - the `zaaknummer_reserved` check on the zaak table: a zaak may carry a reserved number only with the
 *   bronorganisatie it was reserved for, whatever path writes it.
 *
 * A client may still give a zaak a number of the generated form that nobody reserved (zaken taken
 * over from another registry numbered the same way); generation and reservations skip it once it is
 * committed. The check takes no lock per number: a bulk insert of many zaken in one transaction would
 * hold one each and run out of the server's lock table.
 */
export const zaaknummerReservationMigration: Migration = {
  name: 'core/013_zaaknummer_reservation',
  async up(knex: Knex) {
    await knex.raw(`
      create table zaaknummer_reservation (
        identificatie varchar(40) primary key,
        bronorganisatie varchar(9) not null,
        client_id varchar(255) not null default '',
        reserved_at timestamptz not null default now()
      )`);
    await knex.raw(`
      create function zaaknummer_reserve(organisatie text, n int, client text) returns setof text language plpgsql as $$
      declare
        candidate text;
        reserved int := 0;
      begin
        while reserved < n loop
          candidate := 'ZAAK-' || extract(year from current_date)::int || '-' || lpad(nextval('zaak_identificatie_seq')::text, 10, '0');
          if not exists (select 1 from zaak where identificatie = candidate) then
            insert into zaaknummer_reservation (identificatie, bronorganisatie, client_id) values (candidate, organisatie, client);
            reserved := reserved + 1;
            return next candidate;
          end if;
        end loop;
      end $$`);
    await knex.raw(`
      create function zaaknummer_reserved_check() returns trigger language plpgsql as $$
      declare
        reserved_for text;
      begin
        if tg_op = 'UPDATE' and new.identificatie = old.identificatie and new.bronorganisatie = old.bronorganisatie then
          return new;
        end if;
        -- Only numbers of the generated form can have been reserved.
        if new.identificatie !~ '^ZAAK-[0-9]{4}-[0-9]{10}$' then
          return new;
        end if;
        select bronorganisatie into reserved_for from zaaknummer_reservation where identificatie = new.identificatie;
        if reserved_for is not null and reserved_for <> new.bronorganisatie then
          raise exception 'zaaknummer % is reserved for another bronorganisatie', new.identificatie
            using errcode = 'check_violation', constraint = 'zaaknummer_reserved', table = 'zaak';
        end if;
        return new;
      end $$`);
    await knex.raw(`
      create trigger zaaknummer_reserved before insert or update of identificatie, bronorganisatie on zaak
      for each row execute function zaaknummer_reserved_check()`);
  },
  async down(knex: Knex) {
    await knex.raw('drop trigger zaaknummer_reserved on zaak');
    await knex.raw('drop function zaaknummer_reserved_check()');
    await knex.raw('drop function zaaknummer_reserve(text, int, text)');
    await knex.raw('drop table zaaknummer_reservation');
  },
};
