import type { Knex } from 'knex';
import { holdsZaak } from './held-rows.js';

/**
 * The records of one kind a transaction read of zaken it holds, as that read answered them. Another
 * transaction changes a held zaak's records only after locking the zaak, so a second read of them in
 * the same transaction gives what the first gave unless this transaction wrote to their table since:
 * closing a zaak reads its resultaat in zrc-rules' check and again in the archive derivation, once.
 *
 * Only kinds whose rendering reads their own table alone are remembered (no `joins`, no `derive`). A
 * kind's reads are forgotten at any statement of the transaction that may change its table or remove
 * a zaak (its records go with it), whoever sends it.
 */
const byTransaction = new WeakMap<Knex.Transaction, Map<string, Promise<Record<string, unknown>[]>>>();
const changes = (table: string) =>
  new RegExp(`\\b(?:(?:update(?:\\s+only)?|delete\\s+from|insert\\s+into|truncate(?:\\s+table)?(?:\\s+only)?)\\s+"?${table}"?|(?:delete\\s+from|truncate(?:\\s+table)?(?:\\s+only)?)\\s+"?zaak"?)(?![\\w"])`, 'i');
const changesTable = new Map<string, RegExp>();

const isTransaction = (db: Knex | Knex.Transaction): db is Knex.Transaction => (db as Knex.Transaction).isTransaction === true;

function readsOf(tx: Knex.Transaction): Map<string, Promise<Record<string, unknown>[]>> {
  let reads = byTransaction.get(tx);
  if (!reads) {
    const state = (reads = new Map<string, Promise<Record<string, unknown>[]>>());
    byTransaction.set(tx, state);
    (tx as unknown as NodeJS.EventEmitter).on('query', ({ sql = '' }: { sql?: string }) => {
      for (const key of state.keys()) if (changesTable.get(key.slice(0, key.indexOf(' ')))!.test(sql)) state.delete(key);
    });
  }
  return reads;
}

/**
 * The records of `table` of the zaken `uuids` from `read`, or as this transaction read them before
 * when it holds every one of those zaken; each answer a copy.
 */
export async function heldRecords(db: Knex | Knex.Transaction, table: string, uuids: string[], read: () => Promise<Record<string, unknown>[]>): Promise<Record<string, unknown>[]> {
  if (!isTransaction(db) || !uuids.length || !uuids.every((uuid) => holdsZaak(db, uuid))) return read();
  if (!changesTable.has(table)) changesTable.set(table, changes(table));
  const reads = readsOf(db);
  const key = `${table} ${uuids.join(',')}`;
  let records = reads.get(key);
  if (!records) {
    records = read();
    reads.set(key, records);
    records.catch(() => reads.delete(key));
  }
  return structuredClone(await records);
}
