/** Helpers for URLs that point into this registry and for values as clients receive them. */

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The uuid in `{base}{collection}/{uuid}`, lower-cased; undefined when the URL is not one. */
export function localUuid(baseUrl: string, collection: string, url: string): string | undefined {
  const prefix = `${baseUrl}${collection}/`;
  if (!url.startsWith(prefix)) return undefined;
  const uuid = url.slice(prefix.length);
  return UUID_PATTERN.test(uuid) ? uuid.toLowerCase() : undefined;
}

export const localZaakUuid = (baseUrl: string, url: string) => localUuid(baseUrl, '/zaken', url);

/** Timestamps as ISO 8601 strings; other values as they are. */
export const iso = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : ((value as string | null) ?? null));

/**
 * Runs independent queries: in parallel on the pool, one after the other inside a transaction
 * (its single connection runs one query at a time anyway; pg deprecates queueing them).
 */
export async function inParallel<T extends readonly unknown[]>(
  db: { isTransaction?: boolean },
  queries: { [K in keyof T]: () => Promise<T[K]> },
): Promise<T> {
  if (!db.isTransaction) return Promise.all(queries.map((q) => q())) as unknown as Promise<T>;
  const results: unknown[] = [];
  for (const query of queries) results.push(await query());
  return results as unknown as T;
}
