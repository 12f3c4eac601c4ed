import type { Knex } from 'knex';
import type { PgConnection } from './statement-batching.js';

/** A statement compiled once: knex's `?` text for a transaction, the driver's `$n` text for the pool. */
export interface NamedStatement {
  /** The prepared statement's name: PostgreSQL plans it once per connection. */
  readonly name: string;
  readonly sql: string;
  readonly nativeSql: string;
  readonly bindings: readonly Knex.Value[];
}

/** The parts of knex's client that its own runner uses to run a query on a pooled connection. */
interface PoolingClient {
  acquireConnection(): Promise<PgConnection & { __knexUid?: string }>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  emit(event: 'query' | 'query-response' | 'query-error', ...args: unknown[]): boolean;
}

/** Ids for the query events, unique in the process like knex's own. */
let sequence = 0;

/** Compiles `query` once into a named statement, run with other values by `namedRows`. */
export function namedStatement(name: string, query: Knex.QueryBuilder | Knex.Raw): NamedStatement {
  const compiled = query.toSQL();
  return { name, sql: compiled.sql, nativeSql: compiled.toNative().sql, bindings: compiled.bindings };
}

/**
 * The rows of `statement` with `bindings`. On a transaction through knex, whose connection that is;
 * otherwise on a pooled connection straight to the driver (`pooledRows`).
 */
export function namedRows<T>(db: Knex | Knex.Transaction, statement: NamedStatement, bindings: readonly Knex.Value[]): Promise<T[]> {
  return send<T>(db, 'select', { text: statement.nativeSql, values: bindings, name: statement.name });
}

/**
 * The rows of a statement that knex built on `db` (a list page, an insert), run past knex's runner
 * with the statement-batching `options` (`PREPARED`, `DEFERRED_WRITE`).
 */
export function directRows<T>(db: Knex | Knex.Transaction, query: Knex.QueryBuilder, options: { prepare?: boolean; deferredWrite?: boolean }): Promise<T[]> {
  const compiled = query.toSQL();
  const { sql, bindings } = compiled.toNative();
  return send<T>(db, compiled.method, { text: sql, values: bindings, ...options });
}

/**
 * One statement on the connection knex hands out (a pooled one, or the transaction's own), past
 * knex's query object, runner and their promises, which cost the hottest reads (a zaak by uuid, a
 * 304) a tenth of their CPU time. It announces itself as knex's
 * runner does (`query`, `query-response`, `query-error` on `storage.knex`), so tracing and anyone
 * listening still see every statement.
 */
async function send<T>(db: Knex | Knex.Transaction, method: string, config: { text: string; values: readonly unknown[]; name?: string; prepare?: boolean; deferredWrite?: boolean }): Promise<T[]> {
  if (db.isTransaction && (db as Knex.Transaction).isCompleted()) throw new Error(`the transaction is already complete: ${config.text}`);
  const client = db.client as unknown as PoolingClient;
  // A transaction's client answers its own connection, and releasing it is a no-op.
  const connection = await client.acquireConnection();
  const { text, values, ...options } = config;
  const query = { method, sql: text, bindings: values, options, __knexUid: connection.__knexUid, __knexQueryUid: `pooled-${++sequence}` };
  try {
    client.emit('query', query);
    const result = await new Promise<{ rows: T[] }>((resolve, reject) => {
      connection.query(config, (error: Error | null, answer: { rows: T[] }) => (error ? reject(error) : resolve(answer)));
    });
    client.emit('query-response', result, query);
    return result.rows;
  } catch (error) {
    client.emit('query-error', error, query);
    throw error;
  } finally {
    void client.releaseConnection(connection);
  }
}
