import type { Knex } from 'knex';
import { roundTripChannel } from '../../src/storage/statement-batching.js';

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

/** The queries the storage's connections send while `work` runs (each one a round trip), those `keep` accepts. */
export async function roundTripsDuring(work: () => Promise<unknown>, keep: (sql: string) => boolean = () => true): Promise<string[]> {
  const sent: string[] = [];
  const listener = (message: unknown) => {
    const { text } = message as { text: string };
    if (keep(text)) sent.push(text);
  };
  roundTripChannel.subscribe(listener);
  try {
    await work();
  } finally {
    roundTripChannel.unsubscribe(listener);
  }
  return sent;
}
