import type { Knex } from 'knex';

/** The SQL `knex` sends while `work` runs, those `keep` accepts (to leave out the outbox dispatcher's polls, say). */
export async function statementsDuring(knex: Knex, work: () => Promise<unknown>, keep: (sql: string) => boolean = () => true): Promise<string[]> {
  const sql: string[] = [];
  const listener = (query: { sql: string }) => {
    if (keep(query.sql)) sql.push(query.sql);
  };
  knex.on('query', listener);
  try {
    await work();
  } finally {
    knex.off('query', listener);
  }
  return sql;
}
