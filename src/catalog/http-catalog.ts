import { TtlCache } from '../remote/cache.js';
import { remoteClient, type RemoteClient, type RemoteOptions } from '../remote/fetch.js';
import { catalogFromLookup } from './shape.js';
import type { CatalogClient } from './types.js';

export interface HttpCatalogOptions extends Partial<RemoteOptions> {
  /** Catalogi API hosts that may be fetched (`host` or `host:port`); required unless `remote` is given. */
  allowedHosts?: string[];
  /** A remote client to share (its allow-list, timeouts and credentials apply). */
  remote?: RemoteClient;
  /** How long fetched types are kept, default 5 minutes (published types do not change). */
  cacheTtlMs?: number;
  /** Most cached types, default 10,000. */
  cacheSize?: number;
  /** Called on each look-up (metrics): `true` when the cache answered it. */
  onLookup?: (hit: boolean) => void;
}

/**
 * The Catalogi API over HTTP: types are fetched by the URL the client sent, only from allowed
 * hosts, with a timeout and a size cap, and cached (concurrent lookups of one URL share a fetch).
 */
export function httpCatalog(options: HttpCatalogOptions = {}): CatalogClient {
  const remote = options.remote ?? remoteClient({ allowedHosts: options.allowedHosts ?? [], ...options });
  const cache = new TtlCache<unknown>(options.cacheSize ?? 10_000, options.cacheTtlMs ?? 5 * 60_000);
  return catalogFromLookup(async (url) => {
    let fetched = false;
    try {
      return await cache.get(url, () => {
        fetched = true;
        return remote.getJson(url);
      });
    } finally {
      options.onLookup?.(!fetched);
    }
  });
}
