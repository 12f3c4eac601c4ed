import type { Knex } from 'knex';
import { CORE_OPERATIONS } from '../../operation-ids.js';
import type { RecordFilter, ZaakRecordDefinition } from '../shared/zaak-records/definition.js';
import { columnFilter } from '../shared/zaak-records/filters.js';
import { contractSchema } from '../contract/index.js';
import { ALLEEN_BIJWERKEN, LEZEN } from './scopes.js';

const TABLE = 'zaaknotitie';
const enumOf = (component: string) => ({ type: 'string', enum: (contractSchema(component).enum as string[]).filter((v) => typeof v === 'string') });
const dateTime = { type: 'string', format: 'date-time' };

/** `?<name>__icontains=`: the text contains the value, case-insensitively (`%`, `_` and `\` match themselves). */
function containsFilter(name: string, column: string, description: string): RecordFilter {
  return {
    name: `${name}__icontains`,
    description,
    schema: { type: 'string' },
    apply: (query, value) => void query.whereRaw('?? ilike ?', [`${TABLE}.${column}`, `%${String(value).replace(/[\\%_]/g, '\\$&')}%`]),
  };
}

const COMPARISONS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** `?<name>=` and `?<name>__gt=` … `__lte=` on a timestamp the server sets. */
function momentFilters(name: string, column: string, description: string): RecordFilter[] {
  return [
    columnFilter(TABLE, name, column, description, dateTime),
    ...Object.entries(COMPARISONS).map(([suffix, operator]) => ({
      name: `${name}__${suffix}`,
      description,
      schema: dateTime,
      apply: (query: Knex.QueryBuilder, value: unknown) => void query.where(`${TABLE}.${column}`, operator, String(value)),
    })),
  ];
}

/** A text filter, exact and `__icontains`. */
const textFilters = (name: string, column: string, description: string): RecordFilter[] => [
  columnFilter(TABLE, name, column, description),
  containsFilter(name, column, description),
];

const NOT_CONCEPT = 'Een notitie kan alleen gewijzigd worden zolang haar status `concept` is.';

/**
 * ZaakNotitie (Zaken API 1.7): a note on a zaak, linked by `gerelateerdAan`. The server sets
 * `aanmaakdatum` and `wijzigingsdatum`; a note is changed only while its status is `concept`
 * (removing it stays possible). Defaults as the reference implementation: `intern`, `concept`.
 */
export const zaaknotitieDefinition: ZaakRecordDefinition = {
  name: 'zaaknotitie',
  table: TABLE,
  path: '/zaaknotities',
  tag: 'zaaknotities',
  component: 'ZaakNotitie',
  requestComponent: 'ZaakNotitieRequest',
  zaakField: 'gerelateerdAan',
  label: 'ZAAKNOTITIE',
  actions: CORE_OPERATIONS.zaaknotitie,
  scopes: { read: LEZEN, create: ALLEEN_BIJWERKEN, update: ALLEEN_BIJWERKEN, destroy: ALLEEN_BIJWERKEN },
  paginated: true,
  fields: [
    { field: 'onderwerp', column: 'onderwerp' },
    { field: 'tekst', column: 'tekst' },
    { field: 'aangemaaktDoor', column: 'aangemaakt_door' },
    { field: 'notitieType', column: 'notitie_type' },
    { field: 'status', column: 'status' },
    { field: 'aanmaakdatum', column: 'aanmaakdatum', kind: 'timestamp' },
    { field: 'wijzigingsdatum', column: 'wijzigingsdatum', kind: 'timestamp' },
  ],
  filters: [
    ...textFilters('aangemaaktDoor', 'aangemaakt_door', 'Naam of identificatie van de auteur van de notitie'),
    ...momentFilters('aanmaakdatum', 'aanmaakdatum', 'De datum waarop de handeling is gedaan.'),
    columnFilter(TABLE, 'notitieType', 'notitie_type', 'Intern mag enkel een medewerker zien, extern mag gezien worden door medewerker en de initiator.', enumOf('NotitieTypeEnum')),
    ...textFilters('onderwerp', 'onderwerp', 'Korte omschrijving of titel van de notitie'),
    columnFilter(TABLE, 'status', 'status', 'Concept (nog te wijzigen) of definitief.', enumOf('StatusEnum')),
    ...textFilters('tekst', 'tekst', 'De volledige inhoud of beschrijving van de notitie'),
    ...momentFilters('wijzigingsdatum', 'wijzigingsdatum', 'Datum en tijd waarop de notitie voor het laatst is gewijzigd'),
  ],
  // The insert leaves both timestamps to the column defaults (the transaction's time); a change renews one.
  async prepare(_data, { creating, db }) {
    if (!creating) return { wijzigingsdatum: db.fn.now() };
  },
  changeErrors: (stored) => (stored.status === 'concept' ? [] : [{ name: 'status', code: 'invalid', reason: NOT_CONCEPT }]),
  weergave: (notitie) => String(notitie.onderwerp),
};
