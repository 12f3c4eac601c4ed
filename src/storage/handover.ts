import { openStorage } from './index.js';
import type { Storage } from './types.js';

/** What `createRegistry` takes as its storage. */
export type GivenStorage = Storage | Promise<Storage> | string | undefined;

const closable = (value: unknown): value is Storage => typeof (value as Storage | undefined)?.close === 'function';

/**
 * A storage handed to a registry being assembled, held from the first moment: a promise
 * (`postgresStorage(…)` not awaited) gets its handler at once, so a registry whose options or plugins
 * are refused before it awaits the storage leaves neither an unhandled rejection (the database down)
 * nor an open pool or PGlite directory lock behind.
 */
export function handOver(given: GivenStorage) {
  const settled = Promise.resolve(given);
  // Handled here; `open` and `release` still see the outcome.
  settled.catch(() => {});
  return {
    /** The storage given, or the one its database string names (default `memory`). */
    async open(): Promise<Storage> {
      const storage = await settled;
      return typeof storage === 'object' ? storage : openStorage(storage ?? 'memory');
    },
    /**
     * Assembling failed: once the storage given has opened, it is closed. Its own failure is left
     * unreported: the caller gets the error that stopped the assembly, and meets this one on the next try.
     */
    async release(): Promise<void> {
      try {
        const storage = await settled;
        if (closable(storage)) await storage.close();
      } catch {
        // See above.
      }
    },
  };
}
