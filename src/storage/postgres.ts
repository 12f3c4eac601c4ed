import knexFactory from 'knex';
import { knexStorage } from './knex-storage.js';
import { registryTypes } from './pg-types.js';
import type { Storage } from './types.js';

export interface PostgresOptions {
  /** A `postgres://` URL or a pg connection object. */
  connection: string | Record<string, unknown>;
  pool?: { min?: number; max?: number };
}

/** Storage on a PostgreSQL server (15 or newer). */
export async function postgresStorage(options: PostgresOptions): Promise<Storage> {
  const connection =
    typeof options.connection === 'string'
      ? { connectionString: options.connection, types: registryTypes }
      : { ...options.connection, types: registryTypes };
  const knex = knexFactory({ client: 'pg', connection, pool: { min: 0, max: 10, ...options.pool } });
  try {
    await knex.raw('select 1');
  } catch (error) {
    await knex.destroy();
    throw new Error(`cannot connect to PostgreSQL at ${describe(options.connection)}: ${(error as Error).message}`, { cause: error });
  }
  return knexStorage({ kind: 'postgres', description: describe(options.connection), knex });
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
