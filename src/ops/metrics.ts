import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry as PromRegistry } from 'prom-client';
import type { Outbox } from '../outbox/index.js';
import type { ReplicaRouting } from '../storage/types.js';
import type { RemoteExchange } from '../remote/fetch.js';
import { scopeOf } from './request-scope.js';

/** Seconds: from a cached read to a slow write behind a remote look-up. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The pool knex keeps (tarn): how many connections are in use and how many callers wait for one. */
interface PoolCounts {
  numUsed(): number;
  numPendingAcquires(): number;
}

/**
 * A registry's Prometheus metrics, in a prom-client registry of its own (two registries in one
 * process do not collide). Every label is bounded: operation ids, status classes, allowed hosts.
 */
export function registryMetrics(options: { knex: Knex; outbox: () => Outbox; replicas?: ReplicaRouting }) {
  const register = new PromRegistry();
  collectDefaultMetrics({ register });
  const requestDuration = new Histogram({
    name: 'zaakregister_http_request_duration_seconds',
    help: 'API requests by operation id and status class',
    labelNames: ['operation', 'status_class'],
    buckets: DURATION_BUCKETS,
    registers: [register],
  });
  const inFlight = new Gauge({ name: 'zaakregister_http_requests_in_flight', help: 'API requests being answered', registers: [register] });
  const remoteDuration = new Histogram({
    name: 'zaakregister_remote_fetch_duration_seconds',
    help: 'Calls to remote APIs by host and outcome (ok or the failure)',
    labelNames: ['host', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers: [register],
  });
  // One outbox query per scrape, however many metrics read it (reset by the handler).
  let scrapedCounts: ReturnType<Outbox['counts']> | undefined;
  const outboxCounts = () => (scrapedCounts ??= options.outbox().counts());
  const cacheLookups = new Counter({
    name: 'zaakregister_catalog_cache_lookups_total',
    help: 'Catalog look-ups answered from the cache (hit) or fetched (miss)',
    labelNames: ['result'],
    registers: [register],
  });
  new Gauge({
    name: 'zaakregister_outbox_pending',
    help: 'Deliveries waiting in the outbox',
    registers: [register],
    async collect() {
      this.set((await outboxCounts()).pending);
    },
  });
  new Gauge({
    name: 'zaakregister_outbox_oldest_pending_seconds',
    help: 'Age of the oldest waiting delivery',
    registers: [register],
    async collect() {
      this.set((await outboxCounts()).oldestPendingMs / 1000);
    },
  });
  new Counter({
    name: 'zaakregister_outbox_deliveries_total',
    help: 'Delivery attempts of this instance by result: delivered, failed (retried later), gave_up',
    labelNames: ['result'],
    registers: [register],
    async collect() {
      const counts = await outboxCounts();
      this.reset();
      this.inc({ result: 'delivered' }, counts.delivered);
      this.inc({ result: 'failed' }, counts.failedAttempts);
      this.inc({ result: 'gave_up' }, counts.gaveUp);
    },
  });
  const pool = () => (options.knex.client as { pool?: PoolCounts }).pool;
  new Gauge({
    name: 'zaakregister_db_pool_connections',
    help: 'Database connections in use, and callers waiting for one',
    labelNames: ['state'],
    registers: [register],
    collect() {
      this.set({ state: 'in_use' }, pool()?.numUsed() ?? 0);
      this.set({ state: 'waiting' }, pool()?.numPendingAcquires() ?? 0);
    },
  });
  if (options.replicas) replicaMetrics(register, options.replicas);

  return {
    register,
    /** Router middleware: duration and in-flight count of each API request, labelled once routed. */
    observeRequests(req: Request, res: Response, next: NextFunction): void {
      inFlight.inc();
      const stop = requestDuration.startTimer();
      res.once('close', () => {
        inFlight.dec();
        stop({ operation: scopeOf(req)?.operation ?? 'unrouted', status_class: `${Math.floor(res.statusCode / 100)}xx` });
      });
      next();
    },
    observeRemote(exchange: RemoteExchange): void {
      remoteDuration.observe({ host: exchange.host, outcome: exchange.outcome }, exchange.seconds);
    },
    /** A plugin's counter (`SetupApi.addCounter`), in this registry's metrics. */
    counter(counterOptions: { name: string; help: string; labelNames?: string[] }): { inc(labels?: Record<string, string>, value?: number): void } {
      const counter = new Counter({ name: counterOptions.name, help: counterOptions.help, labelNames: counterOptions.labelNames ?? [], registers: [register] });
      return { inc: (labels = {}, value = 1) => counter.inc(labels, value) };
    },
    observeCache(hit: boolean): void {
      cacheLookups.inc({ result: hit ? 'hit' : 'miss' });
    },
    /** `GET /metrics`: the Prometheus text format. */
    /**
     * `GET /metrics`: the Prometheus text format; a 503 when a metric cannot be read (the database is
     * down). Never a rejected promise: Express 4 would leave it unhandled, and Node exits on those.
     */
    handler: ((_req, res) => {
      scrapedCounts = undefined;
      register.metrics().then(
        (text) => {
          res.setHeader('content-type', register.contentType);
          res.end(text);
        },
        (error: unknown) => {
          res.status(503).type('text/plain').end(`metrics unavailable: ${(error as Error).message}\n`);
        },
      );
    }) as RequestHandler,
  };
}

/** Per read replica: its lag, whether reads go to it, and where this instance sent its safe reads. */
function replicaMetrics(register: PromRegistry, replicas: ReplicaRouting): void {
  new Gauge({
    name: 'zaakregister_db_replica_lag_seconds',
    help: 'Seconds since the primary wrote WAL the replica has not replayed (at its last poll)',
    labelNames: ['replica'],
    registers: [register],
    collect() {
      for (const replica of replicas.state().replicas) this.set({ replica: replica.name }, replica.lagSeconds);
    },
  });
  new Gauge({
    name: 'zaakregister_db_replica_usable',
    help: 'Whether safe reads may go to the replica (1) or it is skipped (0: down, lagging)',
    labelNames: ['replica'],
    registers: [register],
    collect() {
      for (const replica of replicas.state().replicas) this.set({ replica: replica.name }, replica.usable ? 1 : 0);
    },
  });
  new Counter({
    name: 'zaakregister_db_reads_total',
    help: 'Safe reads by where this instance sent them: the primary or a replica',
    labelNames: ['target'],
    registers: [register],
    collect() {
      const state = replicas.state();
      this.reset();
      this.inc({ target: 'primary' }, state.primaryReads);
      for (const replica of state.replicas) this.inc({ target: replica.name }, replica.reads);
    },
  });
}

export type RegistryMetrics = ReturnType<typeof registryMetrics>;
