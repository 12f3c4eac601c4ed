import type { Knex } from 'knex';
import type { Logger } from '../log.js';
import { Dispatcher, type DeliveryHandler, type DispatcherOptions, type DispatcherStats } from './dispatcher.js';
import { outboxStore, type Delivery, type OutboxCounts, type OutboxEntry, type OutboxSelection } from './store.js';

export { DeliveryError, type DeliveryHandler, type DispatcherOptions, type DispatcherStats, type OutboxDelivery } from './dispatcher.js';
export type { Delivery, OutboxCounts, OutboxEntry, OutboxSelection } from './store.js';

/**
 * The transactional outbox: deliveries to other registries are written in the transaction of the
 * change they announce (so they exist exactly when the change does) and delivered after commit, with
 * retries, by the dispatcher of any instance on the same database.
 */
export interface Outbox {
  /** Enqueue on the change's transaction (`change.tx`, `ctx.tx`); on the storage only for changes outside one. */
  enqueue(db: Knex | Knex.Transaction, deliveries: Delivery | Delivery[]): Promise<void>;
  /** Stored deliveries, oldest first (default 100): pending ones and failed ones. */
  list(selection?: OutboxSelection & { limit?: number }): Promise<OutboxEntry[]>;
  /** Makes failed (or backing-off) deliveries due now with fresh attempts; answers how many. */
  retry(selection: OutboxSelection): Promise<number>;
  /** For metrics: stored counts per state and kind, and this instance's dispatcher counters. */
  counts(): Promise<OutboxCounts & DispatcherStats>;
  /** Delivers what is due now in this instance and waits for it. */
  deliverDue(): Promise<void>;
}

export interface OutboxRuntime {
  outbox: Outbox;
  start(): void;
  stop(): Promise<void>;
}

export function createOutbox(knex: Knex, handlers: ReadonlyMap<string, DeliveryHandler>, log: Logger, options: DispatcherOptions = {}): OutboxRuntime {
  const store = outboxStore(knex);
  const dispatcher = new Dispatcher(store, handlers, log, options);
  const outbox: Outbox = {
    async enqueue(db, deliveries) {
      const list = Array.isArray(deliveries) ? deliveries : [deliveries];
      await store.insert(db, list);
      // Deliver right after commit rather than at the next poll; nothing when it rolls back.
      const tx = db as Partial<Knex.Transaction>;
      if (tx.isTransaction && tx.executionPromise) tx.executionPromise.then(() => dispatcher.wake(), () => undefined);
      else dispatcher.wake();
    },
    list: (selection) => store.list(selection),
    async retry(selection) {
      const n = await store.retry(selection);
      dispatcher.wake();
      return n;
    },
    async counts() {
      return { ...(await store.counts()), ...dispatcher.counters() };
    },
    deliverDue: () => dispatcher.deliverDue(),
  };
  return {
    outbox,
    start: () => {
      if (options.dispatch !== false) dispatcher.start();
    },
    stop: () => dispatcher.stop(),
  };
}
