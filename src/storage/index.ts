import { pgliteStorage } from './pglite.js';
import { postgresStorage } from './postgres.js';
import type { Storage } from './types.js';

export { pgliteStorage, type PgliteOptions } from './pglite.js';
export { DatabaseConnectionError, postgresStorage, type PostgresOptions } from './postgres.js';
export type { Migration, Storage } from './types.js';

/** The adapters, chosen by the form of the `--database` value (knex-style small frozen map). */
const adapters = Object.freeze({
  postgres: (location: string) => postgresStorage({ connection: location }),
  pglite: (location: string) => pgliteStorage({ dataDir: location }),
});

const POSTGRES_URL = /^postgres(ql)?:\/\//i;
/** A `scheme://` value is meant as a server URL, never as a directory. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** What is wrong with a database string (a URL of an unknown scheme, an empty one); undefined when it can be opened. */
export function databaseStringProblem(database: string): string | undefined {
  if (!database) return 'is empty: memory, a directory or a postgres:// URL';
  if (URL_LIKE.test(database) && !POSTGRES_URL.test(database)) {
    return `has the unknown scheme ${database.slice(0, database.indexOf(':'))}://: the known schemes are postgres:// and postgresql:// (a directory or memory for the embedded database)`;
  }
  return undefined;
}

/** `postgres://…` (or `postgresql://…`) → PostgreSQL server; `memory` or a directory → embedded PGlite; another `scheme://` is refused. */
export function openStorage(database: string): Promise<Storage> {
  const problem = databaseStringProblem(database);
  if (problem) return Promise.reject(new Error(`the database ${problem}`));
  return adapters[POSTGRES_URL.test(database) ? 'postgres' : 'pglite'](database);
}
