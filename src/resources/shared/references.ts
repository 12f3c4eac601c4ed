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
