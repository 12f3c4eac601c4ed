import type { Knex } from 'knex';
import type { PgConnection } from './statement-batching.js';

/** A statement compiled once into the driver's `$n` text, run with other values by `namedRows`. */
export interface NamedStatement {
  /** The prepared statement's name: PostgreSQL plans it once per connection. */
  readonly name: string;
  readonly nativeSql: string;
  readonly bindings: readonly Knex.Value[];
}

/** The parts of knex's client that its own runner uses to run a query on a connection. */
interface ConnectingClient {
  acquireConnection(): Promise<PgConnection & { __knexUid?: string; __knexTxId?: string }>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  emit(event: 'query' | 'query-response' | 'query-error', ...args: unknown[]): boolean;
}

/** Options of the statement-batching connection (`PREPARED`, `DEFERRED_WRITE`). */
type BatchingOptions = { prepare?: boolean | 'page'; deferredWrite?: boolean };

/** Ids for the query events, unique in the process like knex's own. */
let sequence = 0;

/** Compiles `query` once into a named statement. */
export function namedStatement(name: string, query: Knex.QueryBuilder | Knex.Raw): NamedStatement {
  const compiled = query.toSQL();
  return { name, nativeSql: compiled.toNative().sql, bindings: compiled.bindings };
}

/** The rows of `statement` with `bindings`, sent past knex's runner (see `send`). */
export async function namedRows<T>(db: Knex | Knex.Transaction, statement: NamedStatement, bindings: readonly Knex.Value[]): Promise<T[]> {
  return send<T>(db, 'select', { text: statement.nativeSql, values: bindings, name: statement.name });
}

/**
 * The rows of a statement that knex built on `db` (a list page, an insert), sent past knex's runner
 * (see `send`) with the statement-batching `options`.
 */
export async function directRows<T>(db: Knex | Knex.Transaction, query: Knex.QueryBuilder, options: BatchingOptions): Promise<T[]> {
  const compiled = query.toSQL() as Knex.Sql & { timeout?: number };
  // What only knex's runner would honour has no place here.
  if (compiled.timeout || Object.keys(compiled.options ?? {}).length) throw new Error(`directRows runs no timeout or query options: ${compiled.sql}`);
  const { sql, bindings } = compiled.toNative();
  return send<T>(db, compiled.method, { text: sql, values: bindings, ...options });
}

/** A plain (unqualified) table or column name, or an alias, quoted for PostgreSQL. */
export const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Insert texts by shape (table, columns in their order, raw expressions, returning); writes take few shapes. */
const insertTexts = new Map<string, string>();
/** Beyond this many shapes (a record insert takes one per set of fields a client sends), texts are built per call. */
const MAX_INSERT_SHAPES = 500;

/**
 * Inserts one row past knex's compiler and runner: the text of each shape is built once. knex
 * compiles an insert anew every time (wrapping each identifier, numbering each binding): 7% of a
 * `POST /zaken` profile, which runs three. A value may be a `knex.raw` call (a
 * database function computing the column). What this does not write the way knex would goes through
 * knex's compiler instead: a raw text with a quote, `$` or backslash (a `?` in a literal or escaped
 * is no binding), a subquery value, a schema-qualified table, a row with no values. `returning` is SQL
 * as it follows `returning`; `ignoreConflictOn` names the columns of a unique index whose conflict leaves
 * the row out (`on conflict (...) do nothing`).
 */
export async function insertRow<T>(db: Knex | Knex.Transaction, table: string, row: Record<string, unknown>, options: BatchingOptions & { returning?: string; ignoreConflictOn?: readonly string[] } = {}): Promise<T[]> {
  const { returning = '', ignoreConflictOn, ...batching } = options;
  const onConflict = ignoreConflictOn ? ` on conflict (${ignoreConflictOn.map(quoteIdentifier).join(', ')}) do nothing` : '';
  const viaKnex = () => {
    let query = db(table).insert(row);
    if (ignoreConflictOn) query = query.onConflict([...ignoreConflictOn]).ignore();
    // A `?` in `returning` is no binding here either.
    return directRows<T>(db, returning ? query.returning(db.raw(returning.replace(/\?/g, '\\?'))) : query, batching);
  };
  if (table.includes('.')) return viaKnex();
  let key = `${table}\0${returning}\0${onConflict}`;
  const columns: string[] = [];
  const values: unknown[] = [];
  /** Per column its raw expression's text, or undefined for a bound value. */
  const expressions: (string | undefined)[] = [];
  for (const column in row) {
    const value = row[column];
    // knex writes DEFAULT for an undefined value: for one row, the same as leaving the column out.
    if (value === undefined) continue;
    columns.push(column);
    if (isRaw(value)) {
      const { sql, bindings } = value.toSQL();
      if (/['"$\\]/.test(sql)) return viaKnex();
      expressions.push(sql);
      values.push(...bindings);
      key += `\0${column}=${sql}`;
    } else if (typeof value === 'function' || (typeof value === 'object' && value !== null && typeof (value as { toSQL?: unknown }).toSQL === 'function')) {
      return viaKnex();
    } else {
      expressions.push(undefined);
      values.push(value);
      key += `\0${column}`;
    }
  }
  if (!columns.length) return viaKnex();
  let text = insertTexts.get(key);
  if (text === undefined) {
    let n = 0;
    const placeholders = expressions.map((sql) => (sql === undefined ? `$${++n}` : sql.replace(/\?/g, () => `$${++n}`)));
    text = `insert into ${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(', ')}) values (${placeholders.join(', ')})${onConflict}${returning ? ` returning ${returning}` : ''}`;
    if (insertTexts.size < MAX_INSERT_SHAPES) insertTexts.set(key, text);
  }
  return send<T>(db, 'insert', { text, values, ...batching });
}

const isRaw = (value: unknown): value is Knex.Raw =>
  typeof value === 'object' && value !== null && (value as { isRawInstance?: boolean }).isRawInstance === true;

/**
 * One statement on the connection knex hands out (a pooled one, or a transaction's own), past knex's
 * query object, runner and their promises: a few percent of the CPU time of the hottest reads (a zaak
 * by uuid, a 304). It emits knex's `query`, `query-response` (with the rows) and
 * `query-error` events as its runner does, so tracing and listeners on `storage.knex` still see every
 * statement; instrumentation that patches knex's runner itself does not. A failed statement's
 * message starts with its text (without values), as knex's own do.
 */
async function send<T>(db: Knex | Knex.Transaction, method: string, config: { text: string; values: readonly unknown[]; name?: string } & BatchingOptions): Promise<T[]> {
  const client = db.client as unknown as ConnectingClient;
  // A transaction's client answers its own connection, and releasing it is a no-op.
  const connection = await client.acquireConnection();
  const { text, values, ...options } = config;
  const query = { method, sql: text, bindings: values, options, __knexUid: connection.__knexUid, __knexTxId: connection.__knexTxId, __knexQueryUid: `direct-${++sequence}` };
  try {
    client.emit('query', query);
    // Checked where knex checks, right before sending: a statement after COMMIT or ROLLBACK would
    // run outside the transaction and autocommit.
    if (db.isTransaction && (db as Knex.Transaction).isCompleted()) throw new Error('Transaction query already complete');
    const result = await new Promise<{ rows: T[] }>((resolve, reject) => {
      connection.query(config, (error: Error | null, answer: { rows: T[] }) => (error ? reject(error) : resolve(answer)));
    });
    client.emit('query-response', result.rows, query);
    return result.rows;
  } catch (error) {
    if (error instanceof Error) error.message = `${text} - ${error.message}`;
    client.emit('query-error', error, query);
    throw error;
  } finally {
    void client.releaseConnection(connection);
  }
}
