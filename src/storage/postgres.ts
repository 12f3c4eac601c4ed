import knexFactory from 'knex';
import { knexStorage } from './knex-storage.js';
import { registryTypes } from './pg-types.js';
import { batchStatements, type PgConnection } from './statement-batching.js';
import type { JsonSchema } from '../operation.js';
import { checkOptions } from '../options.js';
import { databaseStringProblem } from './database-string.js';
import { withMigrationLock } from './migration-lock.js';
import type { Storage } from './types.js';
import { replicaRouting } from './replicas.js';

export interface PostgresOptions {
  /** A `postgres://` URL or a pg connection object. */
  connection: string | Record<string, unknown>;
  pool?: { min?: number; max?: number };
  /**
   * Whether statements the registry runs often are prepared once per connection (named); default
   * true. `false` behind a pooler that cannot carry them from one transaction to the next:
   * PgBouncer in transaction mode before 1.21, or with `max_prepared_statements = 0`.
   */
  preparedStatements?: boolean;
  /**
   * Streaming replicas of `connection` (URLs or pg connection objects) for safe reads: lists,
   * details, `_zoek`, the audit trail. A client always reads its own writes; see `maxReplicaLagMs`.
   */
  replicas?: (string | Record<string, unknown>)[];
  /** A replica further behind the primary than this is skipped (default 1000). */
  maxReplicaLagMs?: number;
}

/** The options' JSON Schema, checked when the storage is opened. */
export const postgresOptionsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['connection'],
  properties: {
    connection: { type: ['string', 'object'], minLength: 1, description: 'A postgres:// URL or a pg connection object.' },
    pool: {
      type: 'object',
      additionalProperties: false,
      description: 'The size of the connection pool (default 0 to 10).',
      properties: {
        min: { type: 'integer', minimum: 0, description: 'Connections kept open when idle.' },
        max: { type: 'integer', minimum: 1, description: 'Connections at most.' },
      },
    },
    preparedStatements: {
      type: 'boolean',
      description: 'Prepare frequent statements once per connection (default true); false behind PgBouncer in transaction mode without max_prepared_statements (before 1.21).',
    },
    replicas: {
      type: 'array',
      items: { type: ['string', 'object'], minLength: 1 },
      description: 'Streaming replicas (postgres:// URLs or pg connection objects) that serve safe reads.',
    },
    maxReplicaLagMs: { type: 'integer', minimum: 1, description: 'A replica further behind the primary than this is skipped (default 1000).' },
  },
};

/** Storage on a PostgreSQL server (15 or newer). */
export async function postgresStorage(options: PostgresOptions): Promise<Storage> {
  const given = options?.connection;
  // A URL of another scheme (`postgress://`) is a typo; pg would take it for the local defaults.
  const problem = typeof given === 'string' && given ? databaseStringProblem(given) : undefined;
  const replicaProblems = (Array.isArray(options?.replicas) ? options.replicas : []).flatMap((replica, i) => {
    const found = typeof replica === 'string' && replica ? databaseStringProblem(replica) : undefined;
    return found ? [{ path: `/replicas/${i}`, message: found }] : [];
  });
  checkOptions('postgresStorage', postgresOptionsSchema, options, [...(problem ? [{ path: '/connection', message: problem }] : []), ...replicaProblems]);
  const knex = openPool(options.connection, options);
  try {
    await knex.raw('select 1');
  } catch (error) {
    await knex.destroy();
    throw new DatabaseConnectionError(describe(options.connection), connectionFailure(error, options.connection), error);
  }
  // A replica that is down when the registry starts is skipped until it answers: it is not checked here.
  const replicas = options.replicas?.length
    ? replicaRouting({
        primary: knex,
        replicas: options.replicas.map((replica) => ({ name: describe(replica), knex: openPool(replica, options) })),
        maxLagMs: options.maxReplicaLagMs ?? 1000,
      })
    : undefined;
  return knexStorage({
    kind: 'postgres',
    description: describe(options.connection),
    knex,
    replicas,
    exclusively: (work, onWait) => withMigrationLock(knex, work, onWait),
    onClose: replicas && (() => replicas.close()),
  });
}

/** A pool on one server, its connections set up as the registry talks (types, statement batching). */
function openPool(given: PostgresOptions['connection'], options: PostgresOptions) {
  const connection = typeof given === 'string' ? { connectionString: given, types: registryTypes } : { ...given, types: registryTypes };
  // A host that drops packets fails the first connection in 10 s instead of hanging on.
  return knexFactory({
    client: 'pg',
    connection: { connectionTimeoutMillis: 10_000, ...connection },
    pool: {
      min: 0,
      max: 10,
      ...options.pool,
      afterCreate(connection: PgConnection, done: (error: Error | null, connection: unknown) => void) {
        batchStatements(connection, { named: options.preparedStatements !== false });
        done(null, connection);
      },
    },
    // knex would print every failed acquire with a stack on stderr; each failure reaches the caller as an error already.
    log: { warn: ignore, error: ignore, debug: ignore, deprecate: ignore },
  });
}

function ignore(): void {}

/** The database cannot be reached or logged in to; the message names it (without password) and the cause, in one line. */
export class DatabaseConnectionError extends Error {
  constructor(
    readonly database: string,
    readonly reason: string,
    cause: unknown,
  ) {
    super(`cannot connect to PostgreSQL at ${database}: ${reason}`, { cause });
    this.name = 'DatabaseConnectionError';
  }
}

/** Why a first connection failed, in words an operator acts on. */
function connectionFailure(error: unknown, connection: PostgresOptions['connection']): string {
  const { code, message } = error as { code?: string; message?: string };
  let host = 'localhost';
  let port = '5432';
  let user = '';
  if (typeof connection === 'string') {
    try {
      const url = new URL(connection);
      host = url.hostname || host;
      port = url.port || port;
      user = decodeURIComponent(url.username);
    } catch {
      // pg reports an unparseable URL itself.
    }
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused; is PostgreSQL running on ${host}:${port}?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host "${host}" not found`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no answer from ${host}:${port} (${code})`;
    case '28P01':
      return `password authentication failed for user "${user}"`;
    default:
      // 3D000 (database "x" does not exist), 28000 (role "x" does not exist), a connection timeout: the server's words are clear.
      return message || String(error);
  }
}

function describe(connection: PostgresOptions['connection']): string {
  if (typeof connection !== 'string') return `postgres://${String(connection.host ?? 'localhost')}/${String(connection.database ?? '')}`;
  try {
    const url = new URL(connection);
    url.password = '';
    return url.toString();
  } catch {
    return 'postgres (unparseable URL)';
  }
}
