import type { Knex } from 'knex';
import type { ZaakRow } from './columns.js';

/**
 * The zaken a transaction holds (locked `for update`, or created by it) and their rows as they are now.
 * Once a transaction holds a zaak, no other can change it until the end, so a read of it in the same
 * transaction gives what the last read gave, unless this transaction changed it since. The parts of
 * one request (`registry.operations.run`) each find and lock their zaak: held, they read it once.
 *
 * A row is forgotten at any statement of the transaction that may change a zaak row (an update, a
 * delete, an insert into the zaak table, whoever sends it: a plugin's raw SQL too); a row with its
 * relations (`relations.ts`: the uuids of its records) at any statement that is not a `select`. The
 * revision is left out of a remembered row: every record written renews it (`core/005_zaak_revision`).
 */
interface Held {
  uuids: Set<string>;
  rows: Map<string, ZaakRow>;
  withRelations: Map<string, ZaakRow>;
}

const byTransaction = new WeakMap<Knex.Transaction, Held>();
/** A statement that may change a row of the zaak table (not `zaak_revision`, `zaakobject`, ...). */
const CHANGES_ZAAK = /\b(?:update(?:\s+only)?|delete\s+from|insert\s+into|truncate(?:\s+table)?(?:\s+only)?)\s+"?zaak"?(?![\w"])/i;
const READS_ONLY = /^\s*select\b/i;

function heldBy(tx: Knex.Transaction): Held {
  let held = byTransaction.get(tx);
  if (!held) {
    const state: Held = (held = { uuids: new Set(), rows: new Map(), withRelations: new Map() });
    byTransaction.set(tx, state);
    (tx as unknown as NodeJS.EventEmitter).on('query', ({ sql = '' }: { sql?: string }) => {
      if (state.withRelations.size && !READS_ONLY.test(sql)) state.withRelations.clear();
      if (state.rows.size && CHANGES_ZAAK.test(sql)) state.rows.clear();
    });
  }
  return held;
}

const isTransaction = (db: Knex | Knex.Transaction): db is Knex.Transaction => (db as Knex.Transaction).isTransaction === true;

/** Marks `uuid` as held by `db` (a transaction that created the zaak); anything else is left alone. */
export function holdZaak(db: Knex | Knex.Transaction, uuid: string): void {
  if (isTransaction(db)) heldBy(db).uuids.add(uuid);
}

/** The row of a zaak `db` holds, as its last read found it and nothing has changed since; a copy. */
export function heldRow(db: Knex | Knex.Transaction, uuid: string, relations: boolean): ZaakRow | undefined {
  const held = isTransaction(db) ? byTransaction.get(db) : undefined;
  const row = (relations ? held?.withRelations : held?.rows)?.get(uuid);
  return row && { ...row };
}

/** After a read of the zaak in `db`: held from now on when it was locked, and its row remembered when held. */
export function rememberRead(db: Knex | Knex.Transaction, row: ZaakRow, locked: boolean, relations: boolean): void {
  if (!isTransaction(db)) return;
  const held = heldBy(db);
  if (locked) held.uuids.add(row.uuid);
  if (!held.uuids.has(row.uuid)) return;
  const remembered = { ...row, revision: undefined };
  if (relations) held.withRelations.set(row.uuid, remembered);
  // A row with relations is the row and the uuids of its records (`rel_*`): without them, the row.
  held.rows.set(row.uuid, relations ? (Object.fromEntries(Object.entries(remembered).filter(([column]) => !column.startsWith('rel_'))) as ZaakRow) : remembered);
}

/** Whether `db` is a transaction that holds the zaak `uuid` (locked it, or created it). */
export function holdsZaak(db: Knex | Knex.Transaction, uuid: string): boolean {
  return isTransaction(db) && !!byTransaction.get(db)?.uuids.has(uuid);
}
