import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * Generated identificaties handed out ahead of their inserts, so that a `POST /zaken` knows its whole
 * zaak before it sends anything and goes to the database as one round trip (`BEGIN`, the zaak, its
 * audit row, its outbox rows, `COMMIT`):
 *
 * - `zaak_reserve_identificaties(n)`: up to `n` values of `zaak_next_identificatie`'s form from its
 *   sequence, in order, without those a zaak already has, each valid for `valid_for` seconds (at
 *   most 10, and not past the end of the year whose number it carries: both from the clock, not from
 *   the start of the transaction that reserves);
 * - `zaak_created_id(uuid)`: the id of the zaak just inserted with `uuid`, for the rows sent with it.
 *   That insert skips a reserved identificatie a client took for a zaak of its own in the meantime
 *   (`on conflict ... do nothing`); then there is no such zaak, and this fails the transaction as
 *   PostgreSQL fails one that a concurrent one got in the way of (`serialization_failure`): nothing
 *   is stored and the client is told to try again.
 */
export const zaakReservedIdentificatieMigration: Migration = {
  name: 'core/012_zaak_reserved_identificatie',
  async up(knex: Knex) {
    await knex.raw(`
      create function zaak_reserve_identificaties(n int) returns table (identificatie text, valid_for double precision) language sql as $$
        with reserved as materialized (
          select 'ZAAK-' || extract(year from clock_timestamp())::int || '-' || lpad(nextval('zaak_identificatie_seq')::text, 10, '0') as identificatie
          from generate_series(1, n)
        )
        select reserved.identificatie, least(10, extract(epoch from date_trunc('year', clock_timestamp()) + interval '1 year' - clock_timestamp()))::double precision
        from reserved
        where not exists (select 1 from zaak where zaak.identificatie = reserved.identificatie)
        order by reserved.identificatie
      $$`);
    await knex.raw(`
      create function zaak_created_id(zaak_uuid uuid) returns bigint language plpgsql as $$
      declare
        found bigint;
      begin
        select id into found from zaak where uuid = zaak_uuid;
        if found is null then
          raise exception 'the identificatie reserved for zaak % was taken by another zaak meanwhile', zaak_uuid using errcode = 'serialization_failure';
        end if;
        return found;
      end $$`);
  },
  async down(knex: Knex) {
    await knex.raw('drop function zaak_created_id(uuid)');
    await knex.raw('drop function zaak_reserve_identificaties(int)');
  },
};
