import { RemoteError } from '../remote/fetch.js';
import { CATALOG_KINDS, ZAAKTYPE_LIST_FIELD, type CatalogClient, type CatalogKind, type CatalogObject, type ZaakType } from './types.js';

/** Throws `invalid-resource` unless `value` has the fields of a catalog resource of `kind`. */
export function assertKind(kind: CatalogKind, url: string, value: unknown): CatalogObject {
  const missing =
    !value || typeof value !== 'object' ? ['(geen object)'] : CATALOG_KINDS[kind].filter((field) => !(field in (value as object)));
  if (missing.length) throw new RemoteError('invalid-resource', url, `${url} is geen ${kind} (ontbrekende velden: ${missing.join(', ')}).`);
  return value as CatalogObject;
}

/** A catalog client from one lookup function: shape checks and per-zaaktype lists come for free. */
export function catalogFromLookup(lookup: (url: string) => Promise<unknown>): CatalogClient {
  const get = async (kind: CatalogKind, url: string) => assertKind(kind, url, await lookup(url));
  return {
    zaaktype: async (url) => (await get('zaaktype', url)) as ZaakType,
    get,
    async listFor(kind, zaaktype) {
      const urls = (zaaktype[ZAAKTYPE_LIST_FIELD[kind]] as string[] | undefined) ?? [];
      return Promise.all(urls.map((url) => get(kind, url)));
    },
  };
}
