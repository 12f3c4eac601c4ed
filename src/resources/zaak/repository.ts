import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ProblemError, invalidParam } from '../../problem.js';
import { insertRow, namedRows, namedStatement, quoteIdentifier, type NamedStatement } from '../../storage/named-statement.js';
import { DEFERRED_WRITE, PREPARED } from '../../storage/statement-batching.js';
import type { IdentificatieReserve } from './identificaties.js';
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

function uniqueIdentificatie(error: unknown): ProblemError | undefined {
  const e = error as { code?: string; constraint?: string };
  if (e.code === PG_UNIQUE_VIOLATION && e.constraint === 'zaak_bronorganisatie_identificatie_unique') {
    return invalidParam('identificatie', 'identificatie-niet-uniek', 'Deze identificatie bestaat al voor deze bronorganisatie.');
  }
  return undefined;
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
const ZAAK_RETURNING = ZAAK_COLUMNS.map(quoteIdentifier).join(', ');

export const zaakColumns = (db: Knex) => [db.raw(ZAAK_SELECT_LIST), db.ref('hoofdzaak.uuid').as('hoofdzaak_uuid')];

export function selectZaken(db: Knex | Knex.Transaction): Knex.QueryBuilder {
  return db('zaak').leftJoin('zaak as hoofdzaak', 'hoofdzaak.id', 'zaak.hoofdzaak_id');
}

/** Adds the zaak's revision (`core/005_zaak_revision`) to a `selectZaken` query, read in the same statement. */
export function withRevision(query: Knex.QueryBuilder): Knex.QueryBuilder {
  return query.leftJoin('zaak_revision', 'zaak_revision.zaak_id', 'zaak.id').select({ revision: 'zaak_revision.revision' });
}

/**
 * Inserts a zaak and answers its row as stored (a new zaak has no records to derive fields from).
 * Without an identificatie, the database generates one (`ZAAK-2026-0000000042`, from a sequence: unique
 * across processes) in the same statement.
 */
export async function insertZaak(tx: Knex.Transaction, data: Record<string, unknown>, hoofdzaakUuid: string | null = null): Promise<ZaakRow> {
  const row: Record<string, unknown> = { uuid: randomUUID(), ...toColumns(data) };
  if (!row.identificatie) row.identificatie = tx.raw('zaak_next_identificatie(?)', [String(row.bronorganisatie)]);
  try {
    const [inserted] = await insertRow<ZaakRow>(tx, 'zaak', row, { returning: ZAAK_RETURNING, ...PREPARED });
    return { ...inserted, hoofdzaak_uuid: hoofdzaakUuid } as ZaakRow;
  } catch (error) {
    throw uniqueIdentificatie(error) ?? error;
  }
}

/** What the zaak table (`core/001_zaak`) stores for a column a create leaves out; the test of a create's answer against a read of it holds it to the table. */
const zaakDefaults = (): Record<string, unknown> => ({
  omschrijving: '',
  toelichting: '',
  einddatum: null,
  einddatum_gepland: null,
  uiterlijke_einddatum_afdoening: null,
  publicatiedatum: null,
  communicatiekanaal: '',
  producten_of_diensten: [],
  betalingsindicatie: '',
  laatste_betaaldatum: null,
  zaakgeometrie: null,
  verlenging_reden: '',
  verlenging_duur: null,
  opschorting_indicatie: false,
  opschorting_reden: '',
  selectielijstklasse: '',
  hoofdzaak_id: null,
  relevante_andere_zaken: [],
  kenmerken: [],
  archiefnominatie: null,
  archiefstatus: 'nog_te_archiveren',
  archiefactiedatum: null,
  opdrachtgevende_organisatie: '',
  processobjectaard: null,
  startdatum_bewaartermijn: null,
  processobject_datumkenmerk: '',
  processobject_identificatie: '',
  processobject_objecttype: '',
  processobject_registratie: '',
});

const JSONB_COLUMNS = new Set(Object.values(JSON_COLUMNS));
/** A timestamp that JavaScript and PostgreSQL read alike (RFC 3339 with an offset, at most microseconds, no leap second). */
const PLAIN_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:[0-5]\d(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

/** A JSON value with its objects' keys in jsonb's order (shorter keys first, then by their bytes), as jsonb gives them back. */
function inJsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inJsonbOrder);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value).sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const ordered: Record<string, unknown> = {};
  // defineProperty: a key `__proto__` is a key like any other in JSON.
  for (const key of keys) Object.defineProperty(ordered, key, { value: inJsonbOrder((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
  return ordered;
}

/**
 * The row the database will store and answer for the insert `columns` (a zaak's columns, as
 * `toColumns` makes them), or undefined when it would convert a value in a way only it knows (a
 * timestamp in another form than RFC 3339's plain one). Dates stay the strings they were, jsonb comes
 * back in its key order, a timestamp as a `Date`. A test holds this to what the database answers.
 */
function asStored(columns: Record<string, unknown>): Record<string, unknown> | undefined {
  const row = zaakDefaults();
  for (const column in columns) {
    const value = columns[column];
    if (JSONB_COLUMNS.has(column)) row[column] = value === null ? null : inJsonbOrder(JSON.parse(String(value)));
    else if (column === 'laatste_betaaldatum' && value !== null) {
      if (!PLAIN_TIMESTAMP.test(String(value))) return undefined;
      row[column] = new Date(String(value));
    } else row[column] = value;
  }
  return row;
}

/** The unique index a reserved identificatie may meet a client's zaak in. */
const BRONORGANISATIE_IDENTIFICATIE = ['bronorganisatie', 'identificatie'] as const;

/** A zaak inserted ahead of its answer: its row as it will be stored, and its id as an expression for the rows sent with it. */
export interface ZaakInsertedAhead {
  /** The row as stored; its `id` is 0 (not known until the insert runs, and nothing rendered of a new zaak reads it). */
  row: ZaakRow;
  id: Knex.Raw;
}

/**
 * Inserts a zaak without waiting for the database's answer, when the zaak has no identificatie of its
 * own (the caller tells `identificaties` of one that it has: `taken`) and what is stored can be told
 * here (`asStored`): the insert travels with the transaction's
 * next statement or its `COMMIT` (`DEFERRED_WRITE`), so that a create with its audit and outbox rows
 * is one round trip. Its identificatie is reserved (`IdentificatieReserve`); one a client took for a
 * zaak of its own in the meantime leaves the row out, and `id` (`zaak_created_id`) then fails the
 * transaction as a concurrent change would (409). Undefined when it cannot: `insertZaak` then inserts.
 */
export async function insertZaakAhead(
  tx: Knex.Transaction,
  data: Record<string, unknown>,
  hoofdzaakUuid: string | null,
  identificaties: IdentificatieReserve,
): Promise<ZaakInsertedAhead | undefined> {
  const columns = toColumns(data);
  const stored = columns.identificatie ? undefined : asStored(columns);
  if (!stored) return undefined;
  const uuid = randomUUID();
  const identificatie = await identificaties.take(tx);
  await insertRow(tx, 'zaak', { uuid, ...columns, identificatie }, { ignoreConflictOn: BRONORGANISATIE_IDENTIFICATIE, ...DEFERRED_WRITE });
  return {
    row: { ...stored, id: 0, uuid, identificatie, hoofdzaak_uuid: hoofdzaakUuid },
    id: tx.raw('zaak_created_id(?)', [uuid]),
  };
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

/** Statements by a zaak's uuid, built once per dialect and name: they are the hottest, and building one cost more than its plan. */
const byUuidStatements = new Map<string, { statement: NamedStatement; slot: number }>();
const UUID_SLOT = '00000000-0000-0000-0000-000000000000';

/**
 * The first row of the query `build` makes for `uuid`, as a named statement: PostgreSQL plans it once
 * per connection instead of on every request, where planning cost more than running it.
 */
async function firstByUuid<T>(db: Knex | Knex.Transaction, name: string, uuid: string, build: (uuid: string) => Knex.QueryBuilder): Promise<T | undefined> {
  const key = `${db.client.dialect} ${name}`;
  let compiled = byUuidStatements.get(key);
  if (!compiled) {
    const statement = namedStatement(name, build(UUID_SLOT));
    compiled = { statement, slot: statement.bindings.indexOf(UUID_SLOT) };
    byUuidStatements.set(key, compiled);
  }
  const bindings = [...compiled.statement.bindings];
  bindings[compiled.slot] = uuid;
  return (await namedRows<T>(db, compiled.statement, bindings))[0];
}

export function findZaakByUuid(db: Knex | Knex.Transaction, uuid: string, options: { forUpdate?: boolean; relations?: boolean } = {}): Promise<ZaakRow | undefined> {
  const name = `zaak_by_uuid${options.relations ? '_relations' : ''}${options.forUpdate ? '_locked' : ''}`;
  return firstByUuid<ZaakRow>(db, name, uuid, (slot) => {
    const query = withRevision(selectZaken(db)).where('zaak.uuid', slot).first(options.relations ? zaakColumnsWithRelations(db as Knex) : zaakColumns(db as Knex));
    return options.forUpdate ? query.forUpdate('zaak') : query;
  });
}

/** A zaak's id, uuid and revision: all a read needs when it holds the zaak's rendering. */
export interface ZaakKey {
  id: number;
  uuid: string;
  revision: string | null;
}

type KeyWaiter = { resolve(key: ZaakKey | undefined): void; reject(error: unknown): void };

/** The key reads of one turn of the event loop, per database, by uuid. */
const pendingKeyReads = new WeakMap<Knex, Map<string, KeyWaiter[]>>();
/** A burst of reads goes as several statements on several connections, not one long one they all wait for. */
const MAX_KEYS_PER_STATEMENT = 100;

const keysStatement = (db: Knex) => (slot: string) =>
  db('zaak').leftJoin('zaak_revision', 'zaak_revision.zaak_id', 'zaak.id').where('zaak.uuid', slot).first('zaak.id', 'zaak.uuid', 'zaak_revision.revision');

/**
 * A zaak's key by its uuid. The key reads that arrive in one turn of the event loop go as one
 * statement: under concurrent reads, a statement per read (its round trip and the work pg and
 * PostgreSQL do per statement) was a third of a read's cost. Each read's statement is still sent
 * after the read arrived, so it sees every change committed before it; a read alone goes as a
 * statement of its own. A shared statement is traced under the request that started the batch.
 */
export function findZaakKey(db: Knex, uuid: string): Promise<ZaakKey | undefined> {
  // As the database writes it, so that its answer is found by it.
  uuid = uuid.toLowerCase();
  let pending = pendingKeyReads.get(db);
  if (!pending) {
    const reads = (pending = new Map<string, KeyWaiter[]>());
    pendingKeyReads.set(db, reads);
    setImmediate(() => {
      pendingKeyReads.delete(db);
      void readKeys(db, reads);
    });
  }
  return new Promise((resolve, reject) => {
    const waiting = pending.get(uuid);
    if (waiting) waiting.push({ resolve, reject });
    else pending.set(uuid, [{ resolve, reject }]);
  });
}

async function readKeys(db: Knex, reads: Map<string, KeyWaiter[]>): Promise<void> {
  const uuids = [...reads.keys()];
  const chunks = Array.from({ length: Math.ceil(uuids.length / MAX_KEYS_PER_STATEMENT) }, (_, i) =>
    uuids.slice(i * MAX_KEYS_PER_STATEMENT, (i + 1) * MAX_KEYS_PER_STATEMENT),
  );
  await Promise.all(
    chunks.map(async (chunk) => {
      try {
        const keys =
          chunk.length === 1
            ? [await firstByUuid<ZaakKey>(db, 'zaak_key_by_uuid', chunk[0], keysStatement(db))]
            : await namedRows<ZaakKey>(db, keysByUuidsStatement(db), [chunk]);
        const byUuid = new Map(keys.flatMap((key) => (key ? [[key.uuid, key] as const] : [])));
        for (const uuid of chunk) for (const waiter of reads.get(uuid)!) waiter.resolve(byUuid.get(uuid));
      } catch (error) {
        for (const uuid of chunk) for (const waiter of reads.get(uuid)!) waiter.reject(error);
      }
    }),
  );
}

const keysByUuidsStatements = new Map<string, NamedStatement>();

function keysByUuidsStatement(db: Knex): NamedStatement {
  let statement = keysByUuidsStatements.get(db.client.dialect);
  if (!statement) {
    const query = db('zaak')
      .leftJoin('zaak_revision', 'zaak_revision.zaak_id', 'zaak.id')
      .whereRaw('zaak.uuid = any(?::uuid[])', [[]])
      .select('zaak.id', 'zaak.uuid', 'zaak_revision.revision');
    keysByUuidsStatements.set(db.client.dialect, (statement = namedStatement('zaak_keys_by_uuids', query)));
  }
  return statement;
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
