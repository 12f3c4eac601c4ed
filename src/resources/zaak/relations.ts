import type { Knex } from 'knex';
import { zaakColumns, type ZaakRow } from './columns.js';

/** The uuids of what a page of zaken derives its read-only fields from, in a fixed number of queries. */
export interface ZaakRelations {
  deelzaken: Map<number, string[]>;
  rollen: Map<number, string[]>;
  eigenschappen: Map<number, string[]>;
  zaakinformatieobjecten: Map<number, string[]>;
  zaakobjecten: Map<number, string[]>;
  /** The latest status (by datumStatusGezet). */
  status: Map<number, string>;
  resultaat: Map<number, string>;
}

/** A record's uuid and the zaak it belongs to. */
type Owned = { owner: number; uuid: string };

/** Per zaak, the uuid of its latest status: the one Zaak.status and indicatieLaatstGezetteStatus name. */
export function latestStatuses(db: Knex | Knex.Transaction, zaakIds: number[]): Promise<Owned[]> {
  return db('status')
    .distinctOn('zaak_id')
    .whereIn('zaak_id', zaakIds)
    .orderBy([{ column: 'zaak_id' }, { column: 'datum_status_gezet', order: 'desc' }, { column: 'id', order: 'desc' }])
    .select({ owner: 'zaak_id', uuid: 'uuid' });
}

/** Relations of no zaak at all: empty maps to fill. */
export function noRelations(): ZaakRelations {
  return {
    deelzaken: new Map(),
    rollen: new Map(),
    eigenschappen: new Map(),
    zaakinformatieobjecten: new Map(),
    zaakobjecten: new Map(),
    status: new Map(),
    resultaat: new Map(),
  };
}

/** Uuids of a zaak's records as one SQL array, oldest first (an index scan on `(zaak_id, id)`). */
const uuidsOf = (table: string, owner = 'zaak_id') => `array(select r.uuid::text from ${table} r where r.${owner} = zaak.id order by r.id)`;

/** Per zaak row, what its read-only fields derive from: subselects on the `(zaak_id, …)` indexes. */
const RELATION_COLUMNS = [
  `${uuidsOf('zaak', 'hoofdzaak_id')} as rel_deelzaken`,
  `${uuidsOf('rol')} as rel_rollen`,
  `${uuidsOf('zaakeigenschap')} as rel_eigenschappen`,
  `${uuidsOf('zaakinformatieobject')} as rel_zaakinformatieobjecten`,
  `${uuidsOf('zaakobject')} as rel_zaakobjecten`,
  '(select s.uuid::text from status s where s.zaak_id = zaak.id order by s.datum_status_gezet desc, s.id desc limit 1) as rel_status',
  '(select r.uuid::text from resultaat r where r.zaak_id = zaak.id) as rel_resultaat',
];

/**
 * The zaak's columns and its relations, in the same query: rendering a zaak, or a page of them, costs
 * one round trip. Only the rows the query returns pay for the subselects.
 */
export const zaakColumnsWithRelations = (db: Knex) => [...zaakColumns(db), ...RELATION_COLUMNS.map((column) => db.raw(column))];

/** The relations of rows selected with `zaakColumnsWithRelations`. */
export function relationsOf(rows: ZaakRow[]): ZaakRelations {
  const relations = noRelations();
  for (const row of rows) {
    for (const kind of ['deelzaken', 'rollen', 'eigenschappen', 'zaakinformatieobjecten', 'zaakobjecten'] as const) {
      const uuids = row[`rel_${kind}`] as string[] | undefined;
      if (uuids?.length) relations[kind].set(row.id, uuids);
    }
    if (row.rel_status) relations.status.set(row.id, String(row.rel_status));
    if (row.rel_resultaat) relations.resultaat.set(row.id, String(row.rel_resultaat));
  }
  return relations;
}
