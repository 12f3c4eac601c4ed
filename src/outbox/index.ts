import type { Knex } from 'knex';
import type { Logger } from '../log.js';
import { Dispatcher, type DeliveryHandler } from './dispatcher.js';
import type { DispatcherOptions } from './dispatcher-options.js';
import { outboxStore } from './store.js';
import type { Outbox } from '../plugin-types.js';
export type { Outbox };
export { DeliveryError } from './delivery-error.js';
export type { DispatcherOptions } from './dispatcher-options.js';
export type { DeliveryHandler, DispatcherStats, OutboxDelivery } from './dispatcher.js';
export type { Delivery, OutboxCounts, OutboxEntry, OutboxSelection } from './store.js';

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
      const committed = () => dispatcher.mayBeDue(list.map((d) => d.target));
      if (tx.isTransaction && tx.executionPromise) tx.executionPromise.then(committed, () => undefined);
      else committed();
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
