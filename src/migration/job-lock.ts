import type { Knex } from 'knex';
import type { Storage } from '../storage/types.js';

/** The advisory lock key every import job takes: one active job per database. */
const IMPORT_LOCK = 'zaakregister.migration.import';

/** Storages whose import lock this process holds (PGlite: one process owns its data directory). */
const heldInProcess = new WeakSet<Knex>();

/**
 * Takes the database's import lock, or throws naming why not. On PostgreSQL a session advisory lock
 * on a connection of its own: held until released, and gone the moment a killed process's
 * connection drops, so a job killed with kill -9 never blocks the next. Returns the release.
 */
export async function takeImportLock(storage: Storage): Promise<() => Promise<void>> {
  const knex = storage.knex;
  if (storage.kind !== 'postgres') {
    if (heldInProcess.has(knex)) throw new Error('another import job is active on this database');
    heldInProcess.add(knex);
    return async () => void heldInProcess.delete(knex);
  }
  const client = knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(connection: unknown): Promise<void> };
  const connection = (await client.acquireConnection()) as { query(sql: string, values: unknown[]): Promise<{ rows: { locked: boolean }[] }> };
  try {
    const { rows } = await connection.query('select pg_try_advisory_lock(hashtext($1)) as locked', [IMPORT_LOCK]);
    if (!rows[0].locked) throw new Error('another import job is active on this database');
  } catch (error) {
    await client.releaseConnection(connection);
    throw error;
  }
  return async () => {
    await connection.query('select pg_advisory_unlock(hashtext($1)) as locked', [IMPORT_LOCK]).catch(() => undefined);
    await client.releaseConnection(connection);
  };
}
