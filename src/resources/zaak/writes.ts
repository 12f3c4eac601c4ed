import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ProblemError, invalidParam } from '../../problem.js';
import { insertRow } from '../../storage/named-statement.js';
import { DEFERRED_WRITE, PREPARED } from '../../storage/statement-batching.js';
import { holdZaak, rememberRead } from './held-rows.js';
import { PG_CHECK_VIOLATION, PG_UNIQUE_VIOLATION } from '../../storage/types.js';
import { JSON_COLUMNS, ZAAK_RETURNING, toColumns, type ZaakRow } from './columns.js';
import type { IdentificatieReserve } from './identificaties.js';

/** The refusals of a zaak's (bronorganisatie, identificatie) by the database, as the 400 they answer. */
function uniqueIdentificatie(error: unknown): ProblemError | undefined {
  const e = error as { code?: string; constraint?: string };
  if (e.code === PG_UNIQUE_VIOLATION && e.constraint === 'zaak_bronorganisatie_identificatie_unique') {
    return invalidParam('identificatie', 'identificatie-niet-uniek', 'Deze identificatie bestaat al voor deze bronorganisatie.');
  }
  // `core/013_zaaknummer_reservation`: a reserved zaaknummer goes only to a zaak of its bronorganisatie.
  if (e.code === PG_CHECK_VIOLATION && e.constraint === 'zaaknummer_reserved') {
    return invalidParam('identificatie', 'identificatie-gereserveerd', 'Dit zaaknummer is gereserveerd voor een andere bronorganisatie.');
  }
  return undefined;
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
    holdZaak(tx, inserted.uuid);
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
 * The row the database will store and answer for `columns` (a zaak's columns, as `toColumns` makes
 * them) written over `base` (the row before an update; a zaak's defaults for an insert), or undefined
 * when it would convert a value in a way only it knows (a timestamp in another form than RFC 3339's
 * plain one). Dates stay the strings they were, jsonb comes back in its key order, a timestamp as a
 * `Date`. A test holds this to what the database answers.
 */
function asStored(columns: Record<string, unknown>, base: Record<string, unknown> = zaakDefaults()): Record<string, unknown> | undefined {
  const row = { ...base };
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
  holdZaak(tx, uuid);
  return {
    row: { ...stored, id: 0, uuid, identificatie, hoofdzaak_uuid: hoofdzaakUuid },
    id: tx.raw('zaak_created_id(?)', [uuid]),
  };
}

/** Whether a zaak's update can conflict with another zaak or a reservation (`uniqueIdentificatie`). */
export const changesIdentity = (columns: Record<string, unknown>) => columns.identificatie !== undefined || columns.bronorganisatie !== undefined;

/**
 * Updates the zaak `id` with `data`. Given `held`, its row as the transaction holds it with its
 * relations, answers its row as it is now when that can be told here (`asStored`: a change of the
 * zaak's columns leaves its records alone), else undefined (a new hoofdzaak, whose uuid the row
 * joins): the caller reads it back. The row told is what the transaction holds from now on, so the
 * parts of a request after this one read the zaak no more than after a read; its `updated_at`, which
 * nothing renders, stays as it was read.
 */
export async function updateZaak(tx: Knex.Transaction, id: number, data: Record<string, unknown>, held?: ZaakRow): Promise<ZaakRow | undefined> {
  const row = toColumns(data);
  const after = held && !('hoofdzaak_id' in row) ? (asStored(row, held) as ZaakRow | undefined) : undefined;
  row.updated_at = tx.fn.now();
  try {
    // Nothing is read from its answer; a conflict of a new identificatie or bronorganisatie must be told as such, here.
    await tx('zaak').where({ id }).update(row).options(changesIdentity(row) ? {} : DEFERRED_WRITE);
  } catch (error) {
    throw uniqueIdentificatie(error) ?? error;
  }
  if (after) rememberRead(tx, after, false, true);
  return after;
}
