import type { Knex } from 'knex';

/**
 * The advisory lock key every registry takes before it touches the schema: `zaak` and `migr` as two
 * 32-bit halves. One key for the whole database, so instances of any version, and every schema in
 * it, apply their migrations one after the other.
 */
export const MIGRATION_LOCK_KEY = 0x7a61616b_6d696772n;

interface RawConnection {
  query(sql: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/**
 * Runs `work` while this process holds the migration lock of a PostgreSQL database, waiting for
 * another process that holds it. The lock is a transaction-level advisory lock on a connection of
 * its own, outside the pool (a pool of one connection stays free for the migrations): it works
 * directly and behind a pooler in transaction mode, and a process that dies releases it with its
 * connection. `onWait` is called once when another process holds it.
 */
export async function withMigrationLock<T>(knex: Knex, work: () => Promise<T>, onWait?: () => void): Promise<T> {
  const client = knex.client as { acquireRawConnection(): Promise<RawConnection>; destroyRawConnection(connection: RawConnection): Promise<void> };
  const connection = await client.acquireRawConnection();
  try {
    await connection.query('begin');
    // The lock is held while the migrations run on other connections: no server-side timeout may end its wait or its idle transaction.
    await connection.query("select set_config('statement_timeout', '0', true), set_config('lock_timeout', '0', true), set_config('idle_in_transaction_session_timeout', '0', true)");
    const key = String(BigInt.asIntN(64, MIGRATION_LOCK_KEY));
    const { rows } = await connection.query('select pg_try_advisory_xact_lock($1::bigint) as locked', [key]);
    if (rows[0].locked !== true) {
      onWait?.();
      await connection.query('select pg_advisory_xact_lock($1::bigint)', [key]);
    }
    return await work();
  } finally {
    // Ending the transaction releases the lock; the connection is not reused.
    await connection.query('rollback').catch(() => undefined);
    await client.destroyRawConnection(connection).catch(() => undefined);
  }
}
