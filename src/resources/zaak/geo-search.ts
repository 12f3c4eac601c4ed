import type { Knex } from 'knex';
import GeoJSONReader from 'jsts/org/locationtech/jts/io/GeoJSONReader.js';
import RelateOp from 'jsts/org/locationtech/jts/operation/relate/RelateOp.js';

const reader = new GeoJSONReader(undefined as never);

/**
 * `zaakgeometrie.within` of POST /zaken/_zoek: the ids (in id order) of the zaken matching `query`
 * whose geometry lies within `within`. PGlite has no PostGIS, so the exact test runs here (JTS).
 */
export async function withinFilter(query: Knex.QueryBuilder, within: unknown): Promise<number[]> {
  const area = reader.read(within);
  const candidates = (await query.whereNotNull('zaak.zaakgeometrie').orderBy('zaak.id').select('zaak.id', 'zaak.zaakgeometrie')) as {
    id: number;
    zaakgeometrie: unknown;
  }[];
  return candidates.filter((c) => RelateOp.relate(reader.read(c.zaakgeometrie), area).isWithin()).map((c) => c.id);
}
