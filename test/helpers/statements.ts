import type { Knex } from 'knex';
import { roundTripChannel } from '../../src/storage/statement-batching.js';

/**
 * The SQL `knex` sends while `work` runs, those `keep` accepts (to leave out the outbox dispatcher's polls, say).
 * A transaction with a statement `keep` refuses is left out whole, its BEGIN and COMMIT too: it is not the
 * work's, however the timing interleaves it. With `ownTransactions` (for work that opens its transactions
 * itself, a request say), so is one that began before `work`.
 */
export async function statementsDuring(
  knex: Knex,
  work: () => Promise<unknown>,
  keep: (sql: string) => boolean = () => true,
  { ownTransactions = false } = {},
): Promise<string[]> {
  const seen: { sql: string; tx?: string }[] = [];
  const listener = (query: { sql: string; __knexTxId?: string }) => seen.push({ sql: query.sql, tx: query.__knexTxId });
  knex.on('query', listener);
  try {
    await work();
  } finally {
    knex.off('query', listener);
  }
  const begun = new Set(seen.filter((q) => q.tx && /^BEGIN/i.test(q.sql)).map((q) => q.tx));
  const foreign = new Set(seen.filter((q) => q.tx && (!keep(q.sql) || (ownTransactions && !begun.has(q.tx)))).map((q) => q.tx));
  return seen.filter((q) => keep(q.sql) && !(q.tx && foreign.has(q.tx))).map((q) => q.sql);
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
