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
  /** How long a claim holds before another instance may take the delivery over (default 3 × timeout, at least 30 s); renewed every third of it while the delivery runs. */
  leaseMs?: number;
}

/** The options with their defaults filled in (`dispatch` is the registry's to decide). */
export function withDefaults(options: DispatcherOptions): Required<Omit<DispatcherOptions, 'dispatch'>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
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
