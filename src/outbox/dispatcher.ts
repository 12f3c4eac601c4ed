import type { Logger } from '../log.js';
import type { ClaimedEntry, OutboxStore } from './store.js';
import { inRequestScope } from '../ops/request-scope.js';
import { inSpan } from '../ops/tracing.js';
import type { OutboxDelivery, DeliveryHandler, DispatcherStats } from '../plugin-types.js';
export type { OutboxDelivery, DeliveryHandler, DispatcherStats };

/** Throw it from a handler when retrying cannot help (the target refuses the payload): the delivery fails at once. */
export class DeliveryError extends Error {
  readonly permanent: boolean;
  constructor(message: string, options: { permanent?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'DeliveryError';
    this.permanent = options.permanent ?? false;
  }
}

export interface DispatcherOptions {
  /** Deliver in the background (default true); false leaves delivering to other instances or `deliverDue()`. */
  dispatch?: boolean;
  /** How often to look for due deliveries when nothing wakes the dispatcher (default 1000 ms). */
  pollIntervalMs?: number;
  /** Deliveries in flight at once in this instance (default 16). */
  concurrency?: number;
  /** Deliveries in flight at once to one target from this instance (default 4). */
  perTargetConcurrency?: number;
  /** One attempt may take this long (default 10 s). */
  timeoutMs?: number;
  /** Give up after this many attempts (default 12)... */
  maxAttempts?: number;
  /** ...or when a failed attempt finds the delivery older than this (default 24 h). */
  maxAgeMs?: number;
  /** Backoff: base · 2^(attempt−1), capped, with jitter (defaults 1 s and 10 min). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** How long a claim holds before another instance may take the delivery over (default 3 × timeout, at least 30 s). */
  leaseMs?: number;
}

const SHUTDOWN = 'registry shutting down';

/**
 * Delivers pending outbox rows in the background. Each pass claims as many due rows as it has free
 * slots (per instance and per target), runs their handlers, and records the outcome; it is woken by
 * commits that enqueue, by finished deliveries, and by a poll timer.
 */
export class Dispatcher {
  private readonly inFlight = new Map<number, { target: string; done: Promise<void>; abort: AbortController }>();
  private readonly perTarget = new Map<string, number>();
  private readonly stats = { delivered: 0, failedAttempts: 0, gaveUp: 0 };
  private readonly options: Required<Omit<DispatcherOptions, 'dispatch'>>;
  private timer: NodeJS.Timeout | undefined;
  private passing: Promise<void> | undefined;
  private again = false;
  private started = false;
  private stopping = false;

  constructor(
    private readonly store: OutboxStore,
    private readonly handlers: ReadonlyMap<string, DeliveryHandler>,
    private readonly log: Logger,
    options: DispatcherOptions = {},
  ) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.options = {
      pollIntervalMs: options.pollIntervalMs ?? 1000,
      concurrency: options.concurrency ?? 16,
      perTargetConcurrency: options.perTargetConcurrency ?? 4,
      timeoutMs,
      maxAttempts: options.maxAttempts ?? 12,
      maxAgeMs: options.maxAgeMs ?? 24 * 3600_000,
      backoffBaseMs: options.backoffBaseMs ?? 1000,
      backoffMaxMs: options.backoffMaxMs ?? 600_000,
      leaseMs: options.leaseMs ?? Math.max(30_000, 3 * timeoutMs),
    };
  }

  start(): void {
    if (this.started || !this.handlers.size) return;
    this.started = true;
    this.wake();
  }

  /** Look for due deliveries soon (coalesced). */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.passing = this.pass().finally(() => {
      this.passing = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      } else this.schedule();
    });
  }

  /** Claims and starts what is due now, then waits until those deliveries are done (tests, CLI). */
  async deliverDue(): Promise<void> {
    await this.pass();
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  counters(): DispatcherStats {
    return { inFlight: this.inFlight.size, ...this.stats };
  }

  /** Stops claiming, lets deliveries in flight finish within `drainMs`, then interrupts the rest (they stay due). */
  async stop(drainMs = this.options.timeoutMs): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.passing;
    const pending = [...this.inFlight.values()];
    if (!pending.length) return;
    let timer: NodeJS.Timeout | undefined;
    const drained = Promise.all(pending.map((f) => f.done));
    await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)))]);
    clearTimeout(timer);
    for (const flight of this.inFlight.values()) flight.abort.abort(new Error(SHUTDOWN));
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
  }

  private schedule(): void {
    if (this.stopping || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, this.options.pollIntervalMs);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    try {
      for (;;) {
        const free = this.options.concurrency - this.inFlight.size;
        if (free <= 0 || this.stopping) return;
        const busyTargets = [...this.perTarget].filter(([, n]) => n >= this.options.perTargetConcurrency).map(([t]) => t);
        const claimed = await this.store.claim({
          kinds: [...this.handlers.keys()],
          candidates: free * 4,
          busyTargets,
          leaseMs: this.options.leaseMs,
          pick: (entries) => this.pick(entries, free),
        });
        for (const entry of claimed) this.begin(entry);
        if (claimed.length < free) return;
      }
    } catch (error) {
      this.log.error('outbox: claiming deliveries failed', { error: String(error) });
    }
  }

  /** Up to `free` entries, at most the free slots of each target. */
  private pick(entries: ClaimedEntry[], free: number): ClaimedEntry[] {
    const taken = new Map<string, number>();
    const chosen: ClaimedEntry[] = [];
    for (const entry of entries) {
      if (chosen.length >= free) break;
      const used = (this.perTarget.get(entry.target) ?? 0) + (taken.get(entry.target) ?? 0);
      if (used >= this.options.perTargetConcurrency) continue;
      taken.set(entry.target, (taken.get(entry.target) ?? 0) + 1);
      chosen.push(entry);
    }
    return chosen;
  }

  private begin(entry: ClaimedEntry): void {
    const abort = new AbortController();
    this.perTarget.set(entry.target, (this.perTarget.get(entry.target) ?? 0) + 1);
    const done = this.deliver(entry, abort).finally(() => {
      this.inFlight.delete(entry.id);
      const left = (this.perTarget.get(entry.target) ?? 1) - 1;
      if (left > 0) this.perTarget.set(entry.target, left);
      else this.perTarget.delete(entry.target);
      this.wake();
    });
    this.inFlight.set(entry.id, { target: entry.target, done, abort });
  }

  private async deliver(entry: ClaimedEntry, abort: AbortController): Promise<void> {
    const handler = this.handlers.get(entry.kind)!;
    const signal = AbortSignal.any([abort.signal, AbortSignal.timeout(this.options.timeoutMs)]);
    try {
      const interrupted = new Promise<never>((_, reject) => {
        const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error(`no delivery within ${this.options.timeoutMs} ms`));
        if (signal.aborted) fail();
        else signal.addEventListener('abort', fail, { once: true });
      });
      // A handler that ignores the signal still cannot hold its slot past the timeout.
      const attributes = { 'zaakregister.outbox.kind': entry.kind, 'zaakregister.outbox.target': entry.target, 'zaakregister.outbox.attempt': entry.attempts };
      const delivery = () => inSpan('outbox delivery', attributes, () => Promise.race([handler({ ...entry, attempt: entry.attempts, signal }), interrupted]));
      await (entry.requestId ? inRequestScope({ id: entry.requestId }, delivery) : delivery());
    } catch (error) {
      // Cut short by shutdown, or timed out while draining for it: not the target's failure, due again at once.
      await this.failed(entry, error, abort.signal.aborted || (this.stopping && signal.aborted));
      return;
    }
    try {
      await this.store.complete(entry);
      this.stats.delivered++;
    } catch (error) {
      this.log.error('outbox: recording a delivery failed; it will be delivered again', { id: entry.id, error: String(error) });
    }
  }

  private async failed(entry: ClaimedEntry, error: unknown, shutdown: boolean): Promise<void> {
    try {
      if (shutdown) return await this.store.release(entry);
      this.stats.failedAttempts++;
      const message = error instanceof Error ? error.message : String(error);
      const status = await this.store.fail(entry, {
        error: message,
        retryInMs: this.backoff(entry.attempts),
        giveUp: error instanceof DeliveryError && error.permanent,
        maxAttempts: this.options.maxAttempts,
        maxAgeMs: this.options.maxAgeMs,
      });
      if (status === 'failed') {
        this.stats.gaveUp++;
        this.log.error(`outbox: gave up on delivery ${entry.id} (${entry.kind} to ${entry.target}) after ${entry.attempts} attempt(s): ${message}`);
      } else {
        this.log.warn(`outbox: delivery ${entry.id} (${entry.kind} to ${entry.target}) failed, attempt ${entry.attempts}: ${message}`);
      }
    } catch (storeError) {
      this.log.error('outbox: recording a failed delivery failed; it is retried when its claim expires', { id: entry.id, error: String(storeError) });
    }
  }

  /** Exponential, capped, with "equal jitter": half fixed, half random, so retries of many rows spread out. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.options.backoffMaxMs, this.options.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }
}
