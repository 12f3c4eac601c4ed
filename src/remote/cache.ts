/**
 * A small LRU cache with a time-to-live that also shares in-flight loads: ten concurrent requests
 * for one zaaktype cause one fetch.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  /** `ttlOf` gives a loaded value its own time to live in ms (a token's until its `exp`); default the cache's. */
  async get(key: string, load: () => Promise<V>, ttlOf?: (value: V) => number): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) {
      // Re-insert to mark it most recently used.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    const inFlight = this.loading.get(key);
    if (inFlight) return inFlight;
    const promise = load().then(
      (value) => {
        this.set(key, value, ttlOf?.(value));
        return value;
      },
      (error: unknown) => {
        throw error;
      },
    );
    this.loading.set(key, promise);
    try {
      return await promise;
    } finally {
      this.loading.delete(key);
    }
  }

  set(key: string, value: V, ttlMs = this.ttlMs): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: Date.now() + ttlMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  clear(): void {
    this.entries.clear();
  }
}
