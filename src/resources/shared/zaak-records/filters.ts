import type { RecordFilter } from './definition.js';
import { localZaakUuid } from '../references.js';

/** `?zaak=<url>` (or `?gerelateerdAan=<url>`): the records of one zaak (a URL that is no zaak here matches nothing). */
export function zaakFilter(name: string): RecordFilter {
  return {
    name,
    description: 'URL-referentie naar de ZAAK.',
    schema: { type: 'string', format: 'uri' },
    apply: (query, value, ctx) => void query.where('zaak.uuid', localZaakUuid(ctx.baseUrl, String(value)) ?? null),
  };
}

/** Filters on a column of the record's table: `?statustype=<url>`. */
export function columnFilter(table: string, name: string, column: string, description: string, schema: Record<string, unknown> = { type: 'string' }): RecordFilter {
  return { name, description, schema, apply: (query, value) => void query.where(`${table}.${column}`, value as string) };
}
