import { pgliteStorage } from './pglite.js';
import { postgresStorage } from './postgres.js';
import type { Storage } from './types.js';
import { databaseStringProblem, POSTGRES_URL } from './database-string.js';

export { databaseStringProblem, isDatabaseDirectory } from './database-string.js';

export { pgliteStorage, type PgliteOptions } from './pglite.js';
export { DatabaseConnectionError, postgresStorage, type PostgresOptions } from './postgres.js';
export type { Migration, Storage } from './types.js';
export type { ReplicaRouting, ReplicaState } from './types.js';

/** The adapters, chosen by the form of the `--database` value (knex-style small frozen map). */
const adapters = Object.freeze({
  postgres: (location: string) => postgresStorage({ connection: location }),
  pglite: (location: string) => pgliteStorage({ dataDir: location }),
});

/** `postgres://…` (or `postgresql://…`) → PostgreSQL server; `memory` or a directory → embedded PGlite; another `scheme://` is refused. */
export function openStorage(database: string): Promise<Storage> {
  const problem = databaseStringProblem(database);
  if (problem) return Promise.reject(new Error(`the database ${problem}`));
  return adapters[POSTGRES_URL.test(database) ? 'postgres' : 'pglite'](database);
}
