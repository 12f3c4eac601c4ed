import type { Knex } from 'knex';
import { namedRows, namedStatement, type NamedStatement } from '../../storage/named-statement.js';
import { firstByUuid } from './repository.js';

/** A zaak's id, uuid and revision: all a read needs when it holds the zaak's rendering. */
export interface ZaakKey {
  id: number;
  uuid: string;
  revision: string | null;
}

type KeyWaiter = { resolve(key: ZaakKey | undefined): void; reject(error: unknown): void };

/** The key reads of one turn of the event loop, per database, by uuid. */
const pendingKeyReads = new WeakMap<Knex, Map<string, KeyWaiter[]>>();
/** A burst of reads goes as several statements on several connections, not one long one they all wait for. */
const MAX_KEYS_PER_STATEMENT = 100;

const keysStatement = (db: Knex) => (slot: string) =>
  db('zaak').leftJoin('zaak_revision', 'zaak_revision.zaak_id', 'zaak.id').where('zaak.uuid', slot).first('zaak.id', 'zaak.uuid', 'zaak_revision.revision');

/**
 * A zaak's key by its uuid. The key reads that arrive in one turn of the event loop go as one
 * statement: under concurrent reads, a statement per read (its round trip and the work pg and
 * PostgreSQL do per statement) was a third of a read's cost. Each read's statement is still sent
 * after the read arrived, so it sees every change committed before it; a read alone goes as a
 * statement of its own. A shared statement is traced under the request that started the batch.
 */
export function findZaakKey(db: Knex, uuid: string): Promise<ZaakKey | undefined> {
  // As the database writes it, so that its answer is found by it.
  uuid = uuid.toLowerCase();
  let pending = pendingKeyReads.get(db);
  if (!pending) {
    const reads = (pending = new Map<string, KeyWaiter[]>());
    pendingKeyReads.set(db, reads);
    setImmediate(() => {
      pendingKeyReads.delete(db);
      void readKeys(db, reads);
    });
  }
  return new Promise((resolve, reject) => {
    const waiting = pending.get(uuid);
    if (waiting) waiting.push({ resolve, reject });
    else pending.set(uuid, [{ resolve, reject }]);
  });
}

async function readKeys(db: Knex, reads: Map<string, KeyWaiter[]>): Promise<void> {
  const uuids = [...reads.keys()];
  const chunks = Array.from({ length: Math.ceil(uuids.length / MAX_KEYS_PER_STATEMENT) }, (_, i) =>
    uuids.slice(i * MAX_KEYS_PER_STATEMENT, (i + 1) * MAX_KEYS_PER_STATEMENT),
  );
  await Promise.all(
    chunks.map(async (chunk) => {
      try {
        const keys =
          chunk.length === 1
            ? [await firstByUuid<ZaakKey>(db, 'zaak_key_by_uuid', chunk[0], keysStatement(db))]
            : await namedRows<ZaakKey>(db, keysByUuidsStatement(db), [chunk]);
        const byUuid = new Map(keys.flatMap((key) => (key ? [[key.uuid, key] as const] : [])));
        for (const uuid of chunk) for (const waiter of reads.get(uuid)!) waiter.resolve(byUuid.get(uuid));
      } catch (error) {
        for (const uuid of chunk) for (const waiter of reads.get(uuid)!) waiter.reject(error);
      }
    }),
  );
}

const keysByUuidsStatements = new Map<string, NamedStatement>();

function keysByUuidsStatement(db: Knex): NamedStatement {
  let statement = keysByUuidsStatements.get(db.client.dialect);
  if (!statement) {
    const query = db('zaak')
      .leftJoin('zaak_revision', 'zaak_revision.zaak_id', 'zaak.id')
      .whereRaw('zaak.uuid = any(?::uuid[])', [[]])
      .select('zaak.id', 'zaak.uuid', 'zaak_revision.revision');
    keysByUuidsStatements.set(db.client.dialect, (statement = namedStatement('zaak_keys_by_uuids', query)));
  }
  return statement;
}
