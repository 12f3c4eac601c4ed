import type { Knex } from 'knex';
import { quoteIdentifier } from '../../storage/named-statement.js';
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
export const JSON_COLUMNS: Record<string, string> = {
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

/**
 * The zaak table's columns, named in its statements rather than `zaak.*`: PostgreSQL refuses a
 * prepared `*` once a migration adds a column (see `isStalePlan`), and a running instance would meet
 * that on every connection. A test holds the list to the table.
 */
export const ZAAK_COLUMNS = [
  'id',
  'uuid',
  'identificatie',
  'bronorganisatie',
  'omschrijving',
  'toelichting',
  'zaaktype',
  'registratiedatum',
  'verantwoordelijke_organisatie',
  'startdatum',
  'einddatum',
  'einddatum_gepland',
  'uiterlijke_einddatum_afdoening',
  'publicatiedatum',
  'communicatiekanaal',
  'producten_of_diensten',
  'vertrouwelijkheidaanduiding',
  'vertrouwelijkheid_rank',
  'betalingsindicatie',
  'laatste_betaaldatum',
  'zaakgeometrie',
  'verlenging_reden',
  'verlenging_duur',
  'opschorting_indicatie',
  'opschorting_reden',
  'selectielijstklasse',
  'hoofdzaak_id',
  'relevante_andere_zaken',
  'kenmerken',
  'archiefnominatie',
  'archiefstatus',
  'archiefactiedatum',
  'opdrachtgevende_organisatie',
  'processobjectaard',
  'startdatum_bewaartermijn',
  'processobject_datumkenmerk',
  'processobject_identificatie',
  'processobject_objecttype',
  'processobject_registratie',
  'created_at',
  'updated_at',
] as const;

/** `ZAAK_COLUMNS` quoted once: knex then copies one piece of SQL instead of wrapping 41 identifiers per query. */
const ZAAK_SELECT_LIST = ZAAK_COLUMNS.map((column) => `"zaak"."${column}"`).join(', ');
export const ZAAK_RETURNING = ZAAK_COLUMNS.map(quoteIdentifier).join(', ');

export const zaakColumns = (db: Knex) => [db.raw(ZAAK_SELECT_LIST), db.ref('hoofdzaak.uuid').as('hoofdzaak_uuid')];
