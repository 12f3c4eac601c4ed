/** A PostgreSQL server's URL: `postgres://…` or `postgresql://…`. */
export const POSTGRES_URL = /^postgres(ql)?:\/\//i;
/** A `scheme://` value is meant as a server URL, never as a directory. */
export const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A database string naming a directory of the embedded database (not `memory`, not a URL). */
export const isDatabaseDirectory = (database: unknown): database is string => typeof database === 'string' && database !== 'memory' && !URL_LIKE.test(database);

/** What is wrong with a database string (a URL of an unknown scheme, an empty one); undefined when it can be opened. */
export function databaseStringProblem(database: string): string | undefined {
  if (!database) return 'is empty: memory, a directory or a postgres:// URL';
  if (URL_LIKE.test(database) && !POSTGRES_URL.test(database)) {
    return `has the unknown scheme ${database.slice(0, database.indexOf(':'))}://: the known schemes are postgres:// and postgresql:// (a directory or memory for the embedded database)`;
  }
  return undefined;
}
