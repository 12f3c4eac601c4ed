import type { Knex } from 'knex';
import type { Migration } from '../types.js';
import { ZAAK_COUNT_STRIPES } from './004-zaak-count.js';

/** The record tables whose lists are paginated, and so answer a `count`: the kinds `record_count` counts. */
export const COUNTED_RECORD_TABLES = ['status', 'resultaat', 'rol', 'zaakobject', 'klantcontact', 'zaaknotitie'];

/** Adds net changes per key, `changes` a query of (kind, zaaktype, vertrouwelijkheid_rank, delta) rows; keys in one order. */
const upsert = (changes: string) => `
  insert into record_count (kind, zaaktype, vertrouwelijkheid_rank, stripe, n)
  select kind, zaaktype, vertrouwelijkheid_rank, pg_backend_pid() % ${ZAAK_COUNT_STRIPES}, sum(delta)
  from (${changes}) as changes
  group by kind, zaaktype, vertrouwelijkheid_rank
  having sum(delta) <> 0
  order by kind, zaaktype, vertrouwelijkheid_rank
  on conflict (kind, zaaktype, vertrouwelijkheid_rank, stripe) do update set n = record_count.n + excluded.n`;

/** Per counted table the number of a zaak's records, `zaak` the zaak's id: an index scan each. */
const recordsOf = (zaak: string) => COUNTED_RECORD_TABLES.map((table) => `select '${table}' as kind, (select count(*) from ${table} where zaak_id = ${zaak}) as n`).join(' union all ');

/**
 * `record_count`: the exact number of records per kind (its table), zaaktype and confidentiality of
 * their zaak, kept like `zaak_count` (`core/004_zaak_count`) in the transaction of every write,
 * whatever path writes: a record list filtered by authorization alone then counts by summing a few
 * rows instead of joining every record with its zaak (at 1M statussen 2–4 s).
 *
 * - A record inserted or deleted: a statement trigger on its table joins the transition table with
 *   `zaak`. Records a zaak's delete cascades to are not found there (their zaak is gone by then): a
 *   row trigger before the zaak's delete subtracts them, per kind counted by `zaak_id`.
 * - A record moved to another zaak, or a zaak whose zaaktype or confidentiality changes: statement
 *   triggers move the counts, and write nothing when nothing moves.
 * - TRUNCATE of a record table empties its kind; of `zaak` (which takes the records along) all.
 */
export const recordCountMigration: Migration = {
  name: 'core/018_record_count',
  async up(knex: Knex) {
    await knex.raw(`
      create table record_count (
        kind text not null,
        zaaktype varchar(1000) not null,
        vertrouwelijkheid_rank smallint not null,
        stripe smallint not null,
        n bigint not null,
        primary key (kind, zaaktype, vertrouwelijkheid_rank, stripe)
      )`);
    // One function per event for all tables: the kind is the table the trigger fired on.
    await knex.raw(`
      create function record_count_insert() returns trigger language plpgsql as $$
      begin
        ${upsert('select tg_table_name::text as kind, z.zaaktype, z.vertrouwelijkheid_rank, 1 as delta from new_rows r join zaak z on z.id = r.zaak_id')};
        return null;
      end $$`);
    await knex.raw(`
      create function record_count_delete() returns trigger language plpgsql as $$
      begin
        ${upsert('select tg_table_name::text as kind, z.zaaktype, z.vertrouwelijkheid_rank, -1 as delta from old_rows r join zaak z on z.id = r.zaak_id')};
        return null;
      end $$`);
    // Most updates keep the zaak: the join of the transition tables finds no row, nothing else is read.
    await knex.raw(`
      create function record_count_update() returns trigger language plpgsql as $$
      begin
        ${upsert(`select tg_table_name::text as kind, z.zaaktype, z.vertrouwelijkheid_rank, moved.delta
          from (select o.zaak_id as from_zaak, n.zaak_id as to_zaak from old_rows o join new_rows n on n.id = o.id where o.zaak_id <> n.zaak_id) as m
          cross join lateral (values (m.from_zaak, -1), (m.to_zaak, 1)) as moved (zaak_id, delta)
          join zaak z on z.id = moved.zaak_id`)};
        return null;
      end $$`);
    await knex.raw(`
      create function record_count_truncate() returns trigger language plpgsql as $$
      begin
        delete from record_count where kind = tg_table_name::text;
        return null;
      end $$`);
    for (const table of COUNTED_RECORD_TABLES) {
      await knex.raw(`create trigger ${table}_record_count_insert after insert on ${table} referencing new table as new_rows for each statement execute function record_count_insert()`);
      await knex.raw(`create trigger ${table}_record_count_delete after delete on ${table} referencing old table as old_rows for each statement execute function record_count_delete()`);
      await knex.raw(
        `create trigger ${table}_record_count_update after update on ${table} referencing old table as old_rows new table as new_rows for each statement execute function record_count_update()`,
      );
      await knex.raw(`create trigger ${table}_record_count_truncate after truncate on ${table} for each statement execute function record_count_truncate()`);
    }
    // Row-level: zaken are deleted one or a few at a time, and each costs one index scan per kind.
    await knex.raw(`
      create function record_count_zaak_delete() returns trigger language plpgsql as $$
      begin
        ${upsert(`select kind, old.zaaktype, old.vertrouwelijkheid_rank, -n as delta from (${recordsOf('old.id')}) as records where n > 0`)};
        return old;
      end $$`);
    await knex.raw('create trigger record_count_zaak_delete before delete on zaak for each row execute function record_count_zaak_delete()');
    await knex.raw(`
      create function record_count_zaak_update() returns trigger language plpgsql as $$
      begin
        ${upsert(`select records.kind, key.zaaktype, key.vertrouwelijkheid_rank, key.sign * records.n as delta
          from (select o.id, o.zaaktype as old_type, o.vertrouwelijkheid_rank as old_rank, n.zaaktype as new_type, n.vertrouwelijkheid_rank as new_rank
                from old_rows o join new_rows n on n.id = o.id
                where o.zaaktype <> n.zaaktype or o.vertrouwelijkheid_rank <> n.vertrouwelijkheid_rank) as m
          cross join lateral (${recordsOf('m.id')}) as records
          cross join lateral (values (m.old_type, m.old_rank, -1), (m.new_type, m.new_rank, 1)) as key (zaaktype, vertrouwelijkheid_rank, sign)
          where records.n > 0`)};
        return null;
      end $$`);
    await knex.raw(
      'create trigger record_count_zaak_update after update on zaak referencing old table as old_rows new table as new_rows for each statement execute function record_count_zaak_update()',
    );
    await knex.raw(`
      create function record_count_zaak_truncate() returns trigger language plpgsql as $$
      begin
        delete from record_count;
        return null;
      end $$`);
    await knex.raw('create trigger record_count_zaak_truncate after truncate on zaak for each statement execute function record_count_zaak_truncate()');
    for (const table of COUNTED_RECORD_TABLES) {
      await knex.raw(
        `insert into record_count select '${table}', z.zaaktype, z.vertrouwelijkheid_rank, 0, count(*) from ${table} r join zaak z on z.id = r.zaak_id group by 2, 3`,
      );
    }
  },
  async down(knex: Knex) {
    for (const table of COUNTED_RECORD_TABLES) {
      for (const event of ['insert', 'delete', 'update', 'truncate']) await knex.raw(`drop trigger ${table}_record_count_${event} on ${table}`);
    }
    for (const event of ['delete', 'update', 'truncate']) await knex.raw(`drop trigger record_count_zaak_${event} on zaak`);
    for (const name of ['insert', 'delete', 'update', 'truncate', 'zaak_delete', 'zaak_update', 'zaak_truncate']) await knex.raw(`drop function record_count_${name}()`);
    await knex.raw('drop table record_count');
  },
};
