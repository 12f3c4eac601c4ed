import type { Knex } from 'knex';
import type { Migration } from '../types.js';

/** Counter rows per key: concurrent writers of one zaaktype land on different rows and do not queue. */
export const ZAAK_COUNT_STRIPES = 16;

/** Per trigger event, the changes it counts: rows added (+1) and removed (-1), from its transition tables. */
const CHANGES = {
  insert: { referencing: 'new table as new_rows', changes: 'select zaaktype, vertrouwelijkheid_rank, 1 as delta from new_rows' },
  delete: { referencing: 'old table as old_rows', changes: 'select zaaktype, vertrouwelijkheid_rank, -1 as delta from old_rows' },
  update: {
    referencing: 'old table as old_rows new table as new_rows',
    changes: 'select zaaktype, vertrouwelijkheid_rank, 1 as delta from new_rows union all select zaaktype, vertrouwelijkheid_rank, -1 from old_rows',
  },
};

/**
 * The exact number of zaken per (zaaktype, confidentiality), kept by statement triggers in the
 * transaction of every insert, delete (cascades included) and update of the zaak table, whatever path
 * writes it. A list filtered only by authorization or zaaktype then counts by summing a few hundred
 * rows instead of scanning every zaak. Each backend writes its own stripe, so concurrent creates of
 * one zaaktype do not wait for each other's commit.
 */
export const zaakCountMigration: Migration = {
  name: 'core/004_zaak_count',
  async up(knex: Knex) {
    await knex.raw(`
      create table zaak_count (
        zaaktype varchar(1000) not null,
        vertrouwelijkheid_rank smallint not null,
        stripe smallint not null,
        n bigint not null,
        primary key (zaaktype, vertrouwelijkheid_rank, stripe)
      )`);
    for (const [event, { referencing, changes }] of Object.entries(CHANGES)) {
      // One upsert per statement, of the net change per key: an update that moves nothing writes nothing.
      // Keys in one order, so two writers never lock the same counter rows the other way round.
      await knex.raw(`
        create function zaak_count_${event}() returns trigger language plpgsql as $$
        begin
          insert into zaak_count (zaaktype, vertrouwelijkheid_rank, stripe, n)
          select zaaktype, vertrouwelijkheid_rank, pg_backend_pid() % ${ZAAK_COUNT_STRIPES}, sum(delta)
          from (${changes}) as changes
          group by zaaktype, vertrouwelijkheid_rank
          having sum(delta) <> 0
          order by zaaktype, vertrouwelijkheid_rank
          on conflict (zaaktype, vertrouwelijkheid_rank, stripe) do update set n = zaak_count.n + excluded.n;
          return null;
        end $$`);
      await knex.raw(`create trigger zaak_count_${event} after ${event} on zaak referencing ${referencing} for each statement execute function zaak_count_${event}()`);
    }
    await knex.raw(`
      create function zaak_count_truncate() returns trigger language plpgsql as $$
      begin
        delete from zaak_count;
        return null;
      end $$`);
    await knex.raw('create trigger zaak_count_truncate after truncate on zaak for each statement execute function zaak_count_truncate()');
    await knex.raw('insert into zaak_count select zaaktype, vertrouwelijkheid_rank, 0, count(*) from zaak group by 1, 2');
  },
  async down(knex: Knex) {
    await knex.raw('drop trigger zaak_count_truncate on zaak');
    await knex.raw('drop function zaak_count_truncate()');
    for (const event of Object.keys(CHANGES)) {
      await knex.raw(`drop trigger zaak_count_${event} on zaak`);
      await knex.raw(`drop function zaak_count_${event}()`);
    }
    await knex.raw('drop table zaak_count');
  },
};
