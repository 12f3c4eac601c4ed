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

/** `postgres://…` (or `postgresql://…`) → PostgreSQL server; `memory` or a directory → embedded PGlite. */
export function openStorage(database: string): Promise<Storage> {
  const kind = /^postgres(ql)?:\/\//i.test(database) ? 'postgres' : 'pglite';
  return adapters[kind](database);
}
