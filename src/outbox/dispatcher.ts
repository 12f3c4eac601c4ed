import type { Logger } from '../log.js';
import type { ClaimedEntry, OutboxStore } from './store.js';
import { inRequestScope } from '../ops/request-scope.js';
import { inSpan } from '../ops/tracing.js';
import type { OutboxDelivery, DeliveryHandler, DispatcherStats } from '../plugin-types.js';
import { DeliveryError } from './delivery-error.js';
import { withDefaults, type DispatcherOptions } from './dispatcher-options.js';
export type { OutboxDelivery, DeliveryHandler, DispatcherStats };

const SHUTDOWN = 'registry shutting down';

/**
 * Deliveries a dispatcher claims ahead per delivery slot (running or waiting for a slot): a claim is a
 * transaction of its own, so taking a batch at once keeps it off each delivery's cost. Only with a
 * lease longer than two timeouts (the default is three): one claimed ahead starts only while its lease
 * has that much left, an attempt and as much again for recording its outcome.
 */
const HELD_PER_SLOT = 8;
/** A commit that finds the dispatcher caught up is delivered this much later, so one claim takes a burst of commits. */
const LINGER_MS = 5;
/**
 * While claims find a backlog, the outbox's statistics are refreshed at most this often (an `ANALYZE`
 * of a queue table: milliseconds): the claim's plan depends on how many rows are pending.
 */
const ANALYZE_BACKLOG_EVERY_MS = 60_000;

/** A claimed delivery waiting for a slot, with when its lease was asked for (this process's monotonic clock). */
interface Held {
  entry: ClaimedEntry;
  leasedAt: number;
}

/**
 * Delivers pending outbox rows in the background. It claims due rows in batches (up to
 * `HELD_PER_SLOT` per slot, per instance and per target), starts them as slots free, and records each
 * outcome; it claims again when a target's batch is half done, when a commit enqueues, when a
 * delivery with a key is done (the next with that key may be due), and on a poll timer.
 */
export class Dispatcher {
  private readonly inFlight = new Map<number, { target: string; done: Promise<void>; abort: AbortController }>();
  /** Delivered, their rows being deleted: the slot is free already, the claim still held. */
  private readonly recording = new Map<number, Promise<void>>();
  private readonly running = new Map<string, number>();
  /** Claimed, waiting for a slot: per target, oldest first. */
  private readonly waiting = new Map<string, Held[]>();
  private waitingCount = 0;
  private readonly releasing = new Set<Promise<void>>();
  /** Started and not yet recorded (in flight, or delivered and being deleted): their leases are renewed. */
  private readonly leased = new Map<number, ClaimedEntry>();
  private renewal: NodeJS.Timeout | undefined;
  private renewing = false;
  private readonly stats = { delivered: 0, failedAttempts: 0, gaveUp: 0 };
  private readonly options: Required<Omit<DispatcherOptions, 'dispatch'>>;
  private timer: NodeJS.Timeout | undefined;
  private lingering = false;
  /** The last claim found no room: deliveries held by this instance fill it, some waiting for their deletion. */
  private outOfRoom = false;
  private passing: Promise<void> | undefined;
  private again = false;
  /** The last claim saw every due row (none left behind for busy targets): finished deliveries need not claim. */
  private caughtUp = false;
  /** When this dispatcher last had the outbox analyzed (`ANALYZE_BACKLOG_EVERY_MS`). */
  private analyzedAt = -Infinity;
  private started = false;
  private stopping = false;
  /** Claimed deliveries held per slot, and how long after its lease was asked for one may still start. */
  private readonly perSlot: number;
  private readonly startBy: number;

  constructor(
    private readonly store: OutboxStore,
    private readonly handlers: ReadonlyMap<string, DeliveryHandler>,
    private readonly log: Logger,
    options: DispatcherOptions = {},
  ) {
    this.options = withDefaults(options);
    this.startBy = this.options.leaseMs - 2 * this.options.timeoutMs;
    // A shorter lease: claim only what starts at once, with all of its lease.
    this.perSlot = this.startBy > 0 ? HELD_PER_SLOT : 1;
  }

  start(): void {
    if (this.started || !this.handlers.size) return;
    this.started = true;
    // A third of the lease: two renewals may fail or come late before another dispatcher may claim.
    this.renewal = setInterval(() => void this.renewLeases(), Math.max(1, Math.floor(this.options.leaseMs / 3)));
    this.renewal.unref();
    this.wake();
  }

  /** Extends the leases of the deliveries started; one whose claim another dispatcher took is interrupted. */
  private async renewLeases(): Promise<void> {
    if (this.renewing || !this.leased.size) return;
    this.renewing = true;
    const entries = [...this.leased.values()];
    try {
      const kept = await this.store.renew(entries, this.options.leaseMs);
      for (const entry of entries) {
        // A delivery being recorded had its row deleted meanwhile: delivered, not lost.
        if (kept.has(entry.id) || !this.leased.has(entry.id) || this.recording.has(entry.id)) continue;
        this.log.warn(`outbox: the lease of delivery ${entry.id} (${entry.kind} to ${entry.target}) ran out before it was renewed; another instance may deliver it`, { id: entry.id });
        this.inFlight.get(entry.id)?.abort.abort(new Error('lease lost'));
      }
    } catch (error) {
      this.log.error('outbox: renewing the leases of deliveries in flight failed', { error: String(error) });
    } finally {
      this.renewing = false;
    }
  }

  /** Look for due deliveries now (coalesced with a look in progress). */
  wake(): void {
    if (!this.started || this.stopping) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.lingering = false;
    this.passing = this.pass().finally(() => {
      this.passing = undefined;
      if (!this.again) return this.schedule(this.options.pollIntervalMs);
      this.again = false;
      if (this.caughtUp) this.schedule(LINGER_MS);
      else this.wake();
    });
  }

  /**
   * Deliveries to `targets` may be due now (committed, or no longer behind an earlier one with their
   * key): claim them soon, unless batches claimed already will claim again.
   */
  mayBeDue(targets: string[]): void {
    if (!this.started || this.stopping || this.lingering) return;
    if (this.passing) {
      this.again = true;
    } else if (this.caughtUp) {
      this.caughtUp = false;
      this.schedule(LINGER_MS);
    } else if (targets.some((target) => this.heldBy(target) <= this.refillAt())) {
      this.wake();
    }
  }

  /** Claims and starts what is due now, then waits until those deliveries are done (tests, CLI). */
  async deliverDue(): Promise<void> {
    const before = new Set(this.heldIds());
    await this.pass();
    const claimed = new Set(this.heldIds().filter((id) => !before.has(id)));
    for (;;) {
      const held = new Set(this.heldIds());
      const running = [...[...this.inFlight.values()].map((flight) => flight.done), ...this.recording.values()];
      if (!running.length || ![...claimed].some((id) => held.has(id))) break;
      // Those still waiting start as deliveries in flight finish.
      await Promise.race(running);
    }
    await Promise.all(this.releasing);
  }

  counters(): DispatcherStats {
    return { inFlight: this.inFlight.size, claimed: this.inFlight.size + this.waitingCount + this.recording.size, ...this.stats };
  }

  /** Stops claiming, releases what waits for a slot, lets deliveries in flight finish within `drainMs`, then interrupts the rest (they stay due). */
  async stop(drainMs = this.options.timeoutMs): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.passing;
    this.release([...this.waiting.values()].flat().map((held) => held.entry));
    this.waiting.clear();
    this.waitingCount = 0;
    await Promise.all(this.releasing);
    const pending = [...this.inFlight.values()];
    if (pending.length) {
      let timer: NodeJS.Timeout | undefined;
      const drained = Promise.all(pending.map((f) => f.done));
      await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)))]);
      clearTimeout(timer);
      for (const flight of this.inFlight.values()) flight.abort.abort(new Error(SHUTDOWN));
      await Promise.all([...this.inFlight.values()].map((f) => f.done));
    }
    // What was delivered is recorded before the storage closes: else it would be delivered again.
    await Promise.all(this.recording.values());
    clearInterval(this.renewal);
  }

  /** Looks again after `ms`: a poll, or a short linger (which replaces a pending poll, never the reverse). */
  private schedule(ms: number): void {
    if (this.stopping) return;
    const linger = ms < this.options.pollIntervalMs;
    if (this.timer && (this.lingering || !linger)) return;
    clearTimeout(this.timer);
    this.lingering = linger;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
    }, ms);
    this.timer.unref();
  }

  private heldBy(target: string): number {
    return (this.running.get(target) ?? 0) + (this.waiting.get(target)?.length ?? 0);
  }

  /** A target's batch is claimed again once this few of it are left. */
  private refillAt(): number {
    return (this.options.perTargetConcurrency * this.perSlot) / 2;
  }

  /** What this instance holds claimed: in flight, waiting for a slot, and delivered but not yet recorded. */
  private heldIds(): number[] {
    return [...this.inFlight.keys(), ...[...this.waiting.values()].flat().map((held) => held.entry.id), ...this.recording.keys()];
  }

  private async pass(): Promise<void> {
    const perTarget = this.options.perTargetConcurrency * this.perSlot;
    try {
      for (;;) {
        const room = this.options.concurrency * this.perSlot - this.inFlight.size - this.waitingCount - this.recording.size;
        this.outOfRoom = room <= 0;
        if (this.outOfRoom || this.stopping) return;
        const targets = new Set([...this.running.keys(), ...this.waiting.keys()]);
        const busyTargets = [...targets].filter((target) => this.heldBy(target) >= perTarget);
        const { claimed, seen, leasedAt } = await this.store.claim({
          kinds: [...this.handlers.keys()],
          candidates: room,
          busyTargets,
          held: this.heldIds(),
          leaseMs: this.options.leaseMs,
          perTarget,
          // What each target this instance holds deliveries of may still take.
          room: new Map([...targets].map((target) => [target, perTarget - this.heldBy(target)])),
        });
        const full = seen === room;
        this.caughtUp = !full && claimed.length === seen && !busyTargets.length;
        if (this.stopping) return this.release(claimed);
        for (const entry of claimed) {
          const queue = this.waiting.get(entry.target) ?? [];
          queue.push({ entry, leasedAt });
          this.waiting.set(entry.target, queue);
        }
        this.waitingCount += claimed.length;
        this.startWaiting();
        if (full && performance.now() - this.analyzedAt >= ANALYZE_BACKLOG_EVERY_MS) {
          // A backlog: the next claims are planned on what the outbox holds now.
          this.analyzedAt = performance.now();
          await this.store.analyze();
        }
        // Candidates beyond these may be other targets' (these ones' were full).
        if (!full || !claimed.length) return;
      }
    } catch (error) {
      this.log.error('outbox: claiming deliveries failed', { error: String(error) });
    }
  }

  /**
   * Starts waiting deliveries while slots are free, a target at a time in turn. One claimed ahead
   * whose lease has less than two timeouts left is released instead: past its lease another
   * dispatcher may claim it.
   */
  private startWaiting(): void {
    const expired: ClaimedEntry[] = [];
    let started = true;
    while (started && !this.stopping && this.inFlight.size < this.options.concurrency && this.waitingCount) {
      started = false;
      for (const [target, queue] of this.waiting) {
        if (this.inFlight.size >= this.options.concurrency) break;
        if ((this.running.get(target) ?? 0) >= this.options.perTargetConcurrency) continue;
        const held = queue.shift()!;
        this.waitingCount--;
        if (!queue.length) this.waiting.delete(target);
        if (this.perSlot > 1 && performance.now() - held.leasedAt > this.startBy) expired.push(held.entry);
        else this.begin(held.entry);
        started = true;
      }
    }
    this.release(expired);
  }

  private release(entries: ClaimedEntry[]): void {
    if (!entries.length) return;
    const released: Promise<void> = this.store
      .release(entries)
      .catch((error: unknown) => this.log.error('outbox: releasing claimed deliveries failed; they are due again when their claims expire', { error: String(error) }))
      .finally(() => {
        this.releasing.delete(released);
        this.wake();
      });
    this.releasing.add(released);
  }

  private begin(entry: ClaimedEntry): void {
    const abort = new AbortController();
    this.running.set(entry.target, (this.running.get(entry.target) ?? 0) + 1);
    this.leased.set(entry.id, entry);
    const finished = (delivered: boolean) => {
      this.inFlight.delete(entry.id);
      if (!delivered) this.leased.delete(entry.id);
      const left = (this.running.get(entry.target) ?? 1) - 1;
      if (left > 0) this.running.set(entry.target, left);
      else this.running.delete(entry.target);
      if (delivered) this.record(entry);
      this.startWaiting();
      // The next delivery with its key may be due now (this one gave up): no claim saw it, so `caughtUp` does not cover it.
      if (!delivered && entry.key !== null) this.mayBeDue([entry.target]);
      else if (!this.caughtUp && this.heldBy(entry.target) <= this.refillAt()) this.wake();
    };
    const done = this.deliver(entry, abort).then(finished, () => finished(false));
    this.inFlight.set(entry.id, { target: entry.target, done, abort });
  }

  /**
   * Deletes a delivered row, grouped with the others delivered meanwhile, while its slot takes the next
   * delivery: waiting for the round trip held a slot per delivery, and a group while others wait.
   */
  private record(entry: ClaimedEntry): void {
    const recorded = this.store
      .complete(entry)
      .then(
        () => void this.stats.delivered++,
        (error: unknown) => this.log.error('outbox: recording a delivery failed; it will be delivered again', { id: entry.id, error: String(error) }),
      )
      .finally(() => {
        this.recording.delete(entry.id);
        this.leased.delete(entry.id);
        // A claim that found no room may take one now; the next delivery with its key is due now that this row is gone.
        if (this.outOfRoom) this.wake();
        else if (entry.key !== null) this.mayBeDue([entry.target]);
      });
    this.recording.set(entry.id, recorded);
  }

  /** One attempt: true when delivered (recorded by the caller), false when its failure is recorded. */
  private async deliver(entry: ClaimedEntry, abort: AbortController): Promise<boolean> {
    const handler = this.handlers.get(entry.kind)!;
    // One controller for shutdown and timeout: cheaper than AbortSignal.timeout() joined by AbortSignal.any().
    const { signal } = abort;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort(new Error(`no delivery within ${this.options.timeoutMs} ms`));
    }, this.options.timeoutMs);
    try {
      const interrupted = new Promise<never>((_, reject) => {
        const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
        if (signal.aborted) fail();
        else signal.addEventListener('abort', fail, { once: true });
      });
      // A handler that ignores the signal still cannot hold its slot past the timeout.
      const attributes = { 'zaakregister.outbox.kind': entry.kind, 'zaakregister.outbox.target': entry.target, 'zaakregister.outbox.attempt': entry.attempts };
      const delivery = () => inSpan('outbox delivery', attributes, () => Promise.race([handler({ ...entry, attempt: entry.attempts, signal }), interrupted]));
      await (entry.requestId ? inRequestScope({ id: entry.requestId }, delivery) : delivery());
    } catch (error) {
      // Cut short by shutdown, or timed out while draining for it: not the target's failure, due again at once.
      await this.failed(entry, error, (signal.aborted && !timedOut) || (this.stopping && timedOut));
      return false;
    } finally {
      clearTimeout(timer);
    }
    return true;
  }

  private async failed(entry: ClaimedEntry, error: unknown, shutdown: boolean): Promise<void> {
    try {
      if (shutdown) return await this.store.release([entry]);
      this.stats.failedAttempts++;
      const message = error instanceof Error ? error.message : String(error);
      const status = await this.store.fail(entry, {
        error: message,
        // The target said when: not before then, and not sooner than the backoff either.
        retryInMs: Math.max(this.backoff(entry.attempts), error instanceof DeliveryError ? (error.retryAfterMs ?? 0) : 0),
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
