import type { Knex } from 'knex';
import { namedRows, namedStatement, type NamedStatement } from '../../storage/named-statement.js';
import { zaakColumns, type ZaakRow } from './columns.js';
import { zaakColumnsWithRelations } from './relations.js';
import { heldRow, rememberRead } from './held-rows.js';

export function selectZaken(db: Knex | Knex.Transaction): Knex.QueryBuilder {
  return db('zaak').leftJoin('zaak as hoofdzaak', 'hoofdzaak.id', 'zaak.hoofdzaak_id');
}

/** Adds the zaak's revision (`core/005_zaak_revision`) to a `selectZaken` query, read in the same statement. */
export function withRevision(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.leftJoin('zaak_revision', 'zaak_revision.zaak_id', 'zaak.id').select({ revision: 'zaak_revision.revision' });
}

/** Statements by a zaak's uuid, built once per dialect and name: they are the hottest, and building one cost more than its plan. */
const byUuidStatements = new Map<string, { statement: NamedStatement; slot: number }>();
const UUID_SLOT = '00000000-0000-0000-0000-000000000000';

/**
 * The first row of the query `build` makes for `uuid`, as a named statement: PostgreSQL plans it once
 * per connection instead of on every request, where planning cost more than running it.
 */
export async function firstByUuid<T>(db: Knex | Knex.Transaction, name: string, uuid: string, build: (uuid: string) => Knex.QueryBuilder): Promise<T | undefined> {
  const key = `${db.client.dialect} ${name}`;
  let compiled = byUuidStatements.get(key);
  if (!compiled) {
    const statement = namedStatement(name, build(UUID_SLOT));
    compiled = { statement, slot: statement.bindings.indexOf(UUID_SLOT) };
    byUuidStatements.set(key, compiled);
  }
  const bindings = [...compiled.statement.bindings];
  bindings[compiled.slot] = uuid;
  return (await namedRows<T>(db, compiled.statement, bindings))[0];
}

/**
 * A zaak by its uuid. In a transaction that holds the zaak (`held-rows.ts`), a read is answered from
 * what the transaction read last, unless the zaak (or, with `relations`, any record) changed since.
 */
export async function findZaakByUuid(db: Knex | Knex.Transaction, uuid: string, options: { forUpdate?: boolean; relations?: boolean } = {}): Promise<ZaakRow | undefined> {
  const held = heldRow(db, uuid, !!options.relations);
  if (held) return held;
  const name = `zaak_by_uuid${options.relations ? '_relations' : ''}${options.forUpdate ? '_locked' : ''}`;
  const row = await firstByUuid<ZaakRow>(db, name, uuid, (slot) => {
    const query = withRevision(selectZaken(db)).where('zaak.uuid', slot).first(options.relations ? zaakColumnsWithRelations(db as Knex) : zaakColumns(db as Knex));
    return options.forUpdate ? query.forUpdate('zaak') : query;
  });
  if (row) rememberRead(db, row, !!options.forUpdate, !!options.relations);
  return row;
}

/** The deelzaken of a zaak, oldest first. */
export async function findDeelzaken(db: Knex | Knex.Transaction, zaakId: number): Promise<ZaakRow[]> {
  return (await selectZaken(db).where('zaak.hoofdzaak_id', zaakId).orderBy('zaak.id').select(zaakColumns(db as Knex))) as ZaakRow[];
}
