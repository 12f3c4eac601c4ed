import { readFileSync } from 'node:fs';
import { RemoteError } from '../remote/fetch.js';
import { catalogFromLookup } from './shape.js';
import { ZAAKTYPE_LIST_FIELD, type CatalogClient, type CatalogObject } from './types.js';

/** Catalog data: lists of resources by kind, as the Catalogi API would return them. */
export interface StaticCatalogData {
  zaaktypen?: CatalogObject[];
  statustypen?: CatalogObject[];
  resultaattypen?: CatalogObject[];
  roltypen?: CatalogObject[];
  eigenschappen?: CatalogObject[];
  informatieobjecttypen?: CatalogObject[];
}

/**
 * Types from a JSON file or object, in process: for embedded and development setups, examples and
 * tests. A zaaktype without its `statustypen` (etc.) lists gets them from the types that point at it.
 */
export function staticCatalog(source: StaticCatalogData | string): CatalogClient {
  const data = withZaaktypeLists(typeof source === 'string' ? (JSON.parse(readFileSync(source, 'utf8')) as StaticCatalogData) : source);
  const byUrl = new Map<string, CatalogObject>();
  for (const list of Object.values(data) as CatalogObject[][]) for (const item of list ?? []) byUrl.set(item.url, item);
  return catalogFromLookup(async (url) => {
    const found = byUrl.get(url);
    if (!found) throw new RemoteError('status', url, `${url} is not in the static catalog`, 404);
    return found;
  });
}

/** The data with each zaaktype's `statustypen` (etc.) lists, where it has none, from the types that point at it. */
export function withZaaktypeLists(data: StaticCatalogData): StaticCatalogData {
  const zaaktypen = (data.zaaktypen ?? []).map((zaaktype) => {
    const lists: Record<string, string[]> = {};
    for (const [kind, field] of Object.entries(ZAAKTYPE_LIST_FIELD)) {
      if (Array.isArray(zaaktype[field])) continue;
      const list = (data[field] ?? []) as CatalogObject[];
      lists[field] = (kind === 'informatieobjecttype' ? [] : list.filter((item) => item.zaaktype === zaaktype.url)).map((item) => item.url);
    }
    return { ...zaaktype, ...lists };
  });
  return { ...data, zaaktypen };
}
