import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ProblemError, invalidParam } from '../../problem.js';
import { PG_UNIQUE_VIOLATION } from '../../storage/types.js';
import { vertrouwelijkheidRank } from '../shared/enums.js';

/** A zaak row as stored, plus the uuid of its hoofdzaak (joined). */
export interface ZaakRow {
  id: number;
  uuid: string;
  hoofdzaak_uuid: string | null;
  [column: string]: unknown;
}

/** API field ↔ column for the scalar fields that map one to one. */
const SCALAR_COLUMNS: Record<string, string> = {
  identificatie: 'identificatie',
  bronorganisatie: 'bronorganisatie',
  omschrijving: 'omschrijving',
  toelichting: 'toelichting',
  zaaktype: 'zaaktype',
  registratiedatum: 'registratiedatum',
  verantwoordelijkeOrganisatie: 'verantwoordelijke_organisatie',
  startdatum: 'startdatum',
  einddatum: 'einddatum',
  einddatumGepland: 'einddatum_gepland',
  uiterlijkeEinddatumAfdoening: 'uiterlijke_einddatum_afdoening',
  publicatiedatum: 'publicatiedatum',
  communicatiekanaal: 'communicatiekanaal',
  vertrouwelijkheidaanduiding: 'vertrouwelijkheidaanduiding',
  betalingsindicatie: 'betalingsindicatie',
  laatsteBetaaldatum: 'laatste_betaaldatum',
  selectielijstklasse: 'selectielijstklasse',
  archiefnominatie: 'archiefnominatie',
  archiefstatus: 'archiefstatus',
  archiefactiedatum: 'archiefactiedatum',
  opdrachtgevendeOrganisatie: 'opdrachtgevende_organisatie',
  processobjectaard: 'processobjectaard',
  startdatumBewaartermijn: 'startdatum_bewaartermijn',
};
const JSON_COLUMNS: Record<string, string> = {
  productenOfDiensten: 'producten_of_diensten',
  relevanteAndereZaken: 'relevante_andere_zaken',
  kenmerken: 'kenmerken',
  zaakgeometrie: 'zaakgeometrie',
};

/** The columns for the API fields present in `data` (absent fields are left alone on update). */
export function toColumns(data: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(SCALAR_COLUMNS)) {
    if (field in data) row[column] = data[field] ?? (column === 'archiefnominatie' || isNullableColumn(column) ? null : '');
  }
  for (const [field, column] of Object.entries(JSON_COLUMNS)) {
    if (field in data) row[column] = data[field] === null || data[field] === undefined ? (column === 'zaakgeometrie' ? null : '[]') : JSON.stringify(data[field]);
  }
  if ('vertrouwelijkheidaanduiding' in data) row.vertrouwelijkheid_rank = vertrouwelijkheidRank(String(data.vertrouwelijkheidaanduiding));
  if ('laatsteBetaaldatum' in data && data.laatsteBetaaldatum === '') row.laatste_betaaldatum = null;
  if ('verlenging' in data) {
    const v = data.verlenging as { reden?: string; duur?: string | null } | null;
    row.verlenging_reden = v?.reden ?? '';
    row.verlenging_duur = v?.duur ?? null;
  }
  if ('opschorting' in data) {
    const o = data.opschorting as { indicatie?: boolean; reden?: string } | null;
    row.opschorting_indicatie = o?.indicatie ?? false;
    row.opschorting_reden = o?.reden ?? '';
  }
  if ('processobject' in data) {
    const p = (data.processobject ?? {}) as Record<string, string | undefined>;
    for (const key of ['datumkenmerk', 'identificatie', 'objecttype', 'registratie']) row[`processobject_${key}`] = p[key] ?? '';
  }
  if ('hoofdzaakId' in data) row.hoofdzaak_id = data.hoofdzaakId ?? null;
  return row;
}

const NULLABLE_COLUMNS = new Set([
  'einddatum',
  'einddatum_gepland',
  'uiterlijke_einddatum_afdoening',
  'publicatiedatum',
  'laatste_betaaldatum',
  'archiefactiedatum',
  'processobjectaard',
  'startdatum_bewaartermijn',
]);
function isNullableColumn(column: string): boolean {
  return NULLABLE_COLUMNS.has(column);
}

/** `ZAAK-2026-0000000042`: from a database sequence, so concurrent creates (and processes) never collide. */
async function generateIdentificatie(tx: Knex.Transaction, bronorganisatie: string): Promise<string> {
  const year = new Date().getFullYear();
  for (;;) {
    const { rows } = await tx.raw<{ rows: { n: number }[] }>("select nextval('zaak_identificatie_seq')::int8 as n");
    const candidate = `ZAAK-${year}-${String(rows[0].n).padStart(10, '0')}`;
    // A client may have chosen this value itself; the sequence then simply moves on.
    const taken = await tx('zaak').where({ bronorganisatie, identificatie: candidate }).first('id');
    if (!taken) return candidate;
  }
}

function uniqueIdentificatie(error: unknown): ProblemError | undefined {
  const e = error as { code?: string; constraint?: string };
  if (e.code === PG_UNIQUE_VIOLATION && e.constraint === 'zaak_bronorganisatie_identificatie_unique') {
    return invalidParam('identificatie', 'identificatie-niet-uniek', 'Deze identificatie bestaat al voor deze bronorganisatie.');
  }
  return undefined;
}

export const zaakColumns = (db: Knex) => ['zaak.*', db.ref('hoofdzaak.uuid').as('hoofdzaak_uuid')];

export function selectZaken(db: Knex | Knex.Transaction): Knex.QueryBuilder {
  return db('zaak').leftJoin('zaak as hoofdzaak', 'hoofdzaak.id', 'zaak.hoofdzaak_id');
}

export async function insertZaak(tx: Knex.Transaction, data: Record<string, unknown>): Promise<number> {
  const row: Record<string, unknown> = { uuid: randomUUID(), ...toColumns(data) };
  if (!row.identificatie) row.identificatie = await generateIdentificatie(tx, String(row.bronorganisatie));
  try {
    const [inserted] = await tx('zaak').insert(row).returning('id');
    return inserted.id as number;
  } catch (error) {
    throw uniqueIdentificatie(error) ?? error;
  }
}

export async function updateZaak(tx: Knex.Transaction, id: number, data: Record<string, unknown>): Promise<void> {
  const row = toColumns(data);
  row.updated_at = tx.fn.now();
  try {
    await tx('zaak').where({ id }).update(row);
  } catch (error) {
    throw uniqueIdentificatie(error) ?? error;
  }
}

export async function findZaakByUuid(db: Knex | Knex.Transaction, uuid: string, options: { forUpdate?: boolean } = {}): Promise<ZaakRow | undefined> {
  const query = selectZaken(db).where('zaak.uuid', uuid).first(zaakColumns(db as Knex));
  if (options.forUpdate) query.forUpdate('zaak');
  return (await query) as ZaakRow | undefined;
}

/** The deelzaken of a zaak, oldest first. */
export async function findDeelzaken(db: Knex | Knex.Transaction, zaakId: number): Promise<ZaakRow[]> {
  return (await selectZaken(db).where('zaak.hoofdzaak_id', zaakId).orderBy('zaak.id').select(zaakColumns(db as Knex))) as ZaakRow[];
}

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
const uuidsOf = (table: string, owner = 'zaak_id') => `array(select r.uuid::text from ${table} r where r.${owner} = z.id order by r.id)`;

/**
 * One query for a whole page, however many zaken: per zaak, subselects on the `(zaak_id, …)` indexes
 * instead of a query per kind of record.
 */
export async function loadZaakRelations(db: Knex | Knex.Transaction, ids: number[]): Promise<ZaakRelations> {
  const relations = noRelations();
  if (!ids.length) return relations;
  const { rows } = await db.raw<{ rows: Record<string, unknown>[] }>(
    `select z.id,
            ${uuidsOf('zaak', 'hoofdzaak_id')} as deelzaken,
            ${uuidsOf('rol')} as rollen,
            ${uuidsOf('zaakeigenschap')} as eigenschappen,
            ${uuidsOf('zaakinformatieobject')} as zaakinformatieobjecten,
            ${uuidsOf('zaakobject')} as zaakobjecten,
            (select s.uuid::text from status s where s.zaak_id = z.id order by s.datum_status_gezet desc, s.id desc limit 1) as status,
            (select r.uuid::text from resultaat r where r.zaak_id = z.id) as resultaat
     from unnest(?::bigint[]) as z(id)`,
    [ids],
  );
  for (const row of rows) {
    const id = Number(row.id);
    for (const kind of ['deelzaken', 'rollen', 'eigenschappen', 'zaakinformatieobjecten', 'zaakobjecten'] as const) {
      const uuids = row[kind] as string[];
      if (uuids.length) relations[kind].set(id, uuids);
    }
    if (row.status) relations.status.set(id, String(row.status));
    if (row.resultaat) relations.resultaat.set(id, String(row.resultaat));
  }
  return relations;
}
