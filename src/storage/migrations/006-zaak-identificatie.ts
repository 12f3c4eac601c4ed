import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/**
 * `zaak_next_identificatie(bronorganisatie)`: `ZAAK-<year>-<10 digits>` from a sequence, skipping a
 * value a client chose itself. In the database, so a generated identificatie costs no round trip of
 * its own: the insert computes it.
 */
export const zaakIdentificatieMigration: Migration = {
  name: 'core/006_zaak_identificatie',
  async up(knex: Knex) {
    await knex.raw(`
      create function zaak_next_identificatie(organisatie text) returns text language plpgsql as $$
      declare
        candidate text;
      begin
        loop
          candidate := 'ZAAK-' || extract(year from current_date)::int || '-' || lpad(nextval('zaak_identificatie_seq')::text, 10, '0');
          if not exists (select 1 from zaak where bronorganisatie = organisatie and identificatie = candidate) then
            return candidate;
          end if;
        end loop;
      end $$`);
  },
  async down(knex: Knex) {
    await knex.raw('drop function zaak_next_identificatie(text)');
  },
};
