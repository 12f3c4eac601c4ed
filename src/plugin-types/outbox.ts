/** The transactional outbox: deliveries to other registries, written with the change they announce. */
import type { Knex } from 'knex';

/** One delivery to enqueue: which handler delivers it, to where, and what. */
export interface Delivery {
  /** The handler that delivers it (a plugin's name, e.g. `notifications`). */
  kind: string;
  /** Where it goes (a host, `docs.example.nl`): the unit of the per-target concurrency limit. */
  target: string;
  /** Deliveries with the same key go one after the other, in enqueue order (e.g. a relation's create before its delete). */
  key?: string;
  payload: Record<string, unknown>;
}

/** A delivery as stored: pending (waiting, in flight or backing off) or failed (gave up; kept until retried). */
export interface OutboxEntry {
  id: number;
  kind: string;
  target: string;
  key: string | null;
  payload: Record<string, unknown>;
  status: 'pending' | 'failed';
  attempts: number;
  createdAt: string;
  nextAttemptAt: string;
  lastError: string | null;
  /** The request that enqueued it: sent on the delivery as `X-Request-Id`. */
  requestId: string | null;
}

export interface OutboxCounts {
  pending: number;
  failed: number;
  /** Age of the oldest pending delivery in ms (0 when none): how far delivery lags behind. */
  oldestPendingMs: number;
  byKind: Record<string, { pending: number; failed: number }>;
}

export interface OutboxSelection {
  ids?: number[];
  status?: 'pending' | 'failed';
  kind?: string;
}

/** What a handler receives: the stored delivery, and a signal that aborts it (timeout, shutdown). */
export interface OutboxDelivery {
  id: number;
  kind: string;
  target: string;
  key: string | null;
  payload: Record<string, unknown>;
  /** This attempt's number, from 1. */
  attempt: number;
  createdAt: string;
  signal: AbortSignal;
}

/** Delivers one delivery; resolves when the target has it. A throw is a failed attempt. */
export type DeliveryHandler = (delivery: OutboxDelivery) => Promise<void>;

export interface DispatcherStats {
  inFlight: number;
  /** Claimed by this instance: in flight, claimed ahead waiting for a slot, and delivered with the deletion of its row under way. */
  claimed: number;
  /** Since start, in this instance. */
  delivered: number;
  failedAttempts: number;
  gaveUp: number;
}

/**
 * The transactional outbox: deliveries to other registries are written in the transaction of the
 * change they announce (so they exist exactly when the change does) and delivered after commit, with
 * retries, by the dispatcher of any instance on the same database.
 */
export interface Outbox {
  /**
   * Enqueue on the change's transaction (`change.tx`, `ctx.tx`); on the storage only for changes outside one.
   * In a transaction the row travels with the transaction's next statement or its `COMMIT` (one round trip
   * less): it resolves before the row is written, and a row that cannot be written fails the transaction.
   */
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
