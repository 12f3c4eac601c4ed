import type { Knex } from 'knex';
import type { QueryParameter } from '../../../operation.js';
import type { RequestContext } from '../../../plugin.js';
import type { InvalidParam } from '../../../problem.js';
import type { ChangeActor } from '../../audittrail/record.js';
import type { ZaakRow } from '../../zaak/columns.js';

/**
 * `headers`: HEAD on the detail path is documented (the contract lists it where ETags are served).
 * `read` and `delete`: retrieve and destroy, served under the operationIds the contract gives them
 * (`zaaknotitie_read`, `zaaknotitie_delete`).
 */
export type RecordAction = 'list' | 'create' | 'retrieve' | 'read' | 'headers' | 'update' | 'partial_update' | 'destroy' | 'delete';

/** An API field stored in a column of the record's table. */
export interface StoredField {
  field: string;
  column: string;
  kind?: 'text' | 'json' | 'timestamp';
}

/** A filter of a record list: its query parameter and how it narrows the query. */
export interface RecordFilter extends QueryParameter {
  apply(query: Knex.QueryBuilder, value: unknown, ctx: RequestContext): void;
}

/** A record row as read: its columns plus the uuid of its zaak. */
export interface RecordRow {
  id: number;
  uuid: string;
  zaak_id: number;
  zaak_uuid: string;
  [column: string]: unknown;
}

/** What a record's `prepare` may use: the services, the base URL and, for API requests, the caller. */
export type WriteScope = Pick<RequestContext, 'registry' | 'baseUrl' | 'principal'>;

export interface PrepareContext {
  ctx: WriteScope;
  /** Where to look things up: the storage (API requests, before their transaction) or the caller's transaction. */
  db: Knex | Knex.Transaction;
  creating: boolean;
  /** The zaak the record belongs to after the change. */
  zaak: ZaakRow;
  /** The record as it is now (updates). */
  current?: RecordRow;
}

/**
 * A record that belongs to a zaak (Status, Rol, ZaakObject, ...): declared once, served as the
 * operations the contract lists for it, with validation, zrc-006 filtering and the audit trail.
 */
export interface ZaakRecordDefinition {
  /** Singular name: operationId prefix and `resource` in the audit trail, e.g. `status`. */
  name: string;
  table: string;
  /** Collection path: `/statussen`, or nested `/zaken/{zaak_uuid}/zaakeigenschappen`. */
  path: string;
  tag: string;
  /** The contract schema that describes it, e.g. `Status`. */
  component: string;
  /**
   * The contract schema of its request bodies, where the contract has one of its own (`ZaakNotitieRequest`:
   * required texts may not be blank); PATCH bodies are documented as `Patched<requestComponent>`.
   * Without it, request bodies are `component` without its read-only fields.
   */
  requestComponent?: string;
  /** The field that links it to its zaak, also its `?<field>=` filter: `zaak` (default) or `gerelateerdAan` (ZaakNotitie). */
  zaakField?: string;
  /** Name in summaries, e.g. `STATUS`. */
  label: string;
  actions: readonly RecordAction[];
  /** The OpenAPI `description` of some of its operations, where a rule should be read there. */
  descriptions?: Partial<Record<RecordAction, string>>;
  /** Scopes per kind of operation; any one of a list suffices. */
  scopes: { read: string[]; create: string[]; update?: string[]; destroy?: string[] };
  /** Lists are paginated, or bare arrays, as the contract says. */
  paginated: boolean;
  /** The contract marks the resource's operations deprecated: still served, documented as such. */
  deprecated?: boolean;
  /** Stored fields besides `zaak`, client-writable or derived when written. */
  fields: StoredField[];
  filters?: RecordFilter[];
  /**
   * The record stays with the zaak it was made for: an update naming another zaak is refused
   * (`zaak` / `wijzigen-niet-toegelaten`) instead of moving it.
   */
  staysWithZaak?: boolean;
  /**
   * A PUT replaces the record as a whole: the writable fields it leaves out are cleared, not kept
   * from before (PATCH and service updates still change only what they name).
   */
  replacedByPut?: boolean;
  /** A polymorphic field whose shape depends on a discriminator (Rol.betrokkeneIdentificatie). */
  variant?: { discriminator: string; field: string };
  /** Rules beyond the schema, on the complete record after the change. */
  check?(record: Record<string, unknown>): InvalidParam[];
  /**
   * Rules against the stored records (one resultaat per zaak), checked with the validation so that a
   * conflict is a 400 before a closed zaak's 403, as in the ZGW reference; the constraint still decides races.
   */
  conflicts?(context: PrepareContext): Promise<InvalidParam[]>;
  /**
   * Authorization beyond the scopes that depends on the zaak's records (zaken.aanmaken sets only a
   * first status): before the write's look-ups, and again inside its transaction on the locked zaak.
   */
  authorize?(context: PrepareContext): Promise<void>;
  /**
   * Resolves references and derives stored values before the write (catalog look-ups, local links):
   * sets derived API fields on `data`, returns columns that are no API field (a resolved link's id).
   */
  prepare?(data: Record<string, unknown>, context: PrepareContext): Promise<Record<string, unknown> | void>;
  /** Read-only fields derived from other records, for a page of rows in a fixed number of queries. */
  derive?(db: Knex | Knex.Transaction, rows: RecordRow[], baseUrl: string): Promise<(row: RecordRow) => Record<string, unknown>>;
  /** Columns to select besides the table's own (joined values the representation needs). */
  joins?(query: Knex.QueryBuilder): void;
  /**
   * A created row rendered from what its insert returns, not read back (a round trip less per create):
   * SQL expressions the insert's RETURNING adds by alias (over the new row, by table name) for what
   * `joins` and `derive` give, and the derived fields from them. Without it, a definition with
   * `joins` or `derive` reads a created row back.
   */
  inserted?: { returning: Record<string, string>; derive(row: RecordRow, baseUrl: string): Record<string, unknown> };
  /**
   * Why the stored record may not be changed (a definitief ZaakNotitie): checked on the row as an
   * update locked it, inside the update's transaction, so a concurrent change is seen.
   */
  changeErrors?(stored: RecordRow): InvalidParam[];
  /** A unique constraint's name → the error to answer when a write violates it. */
  unique?: Record<string, InvalidParam>;
  /** `resourceWeergave` in the audit trail. */
  weergave(record: Record<string, unknown>): string;
}

/** Where a service-layer write happens: the caller's transaction, base URL and (for the audit trail) who. */
export interface RecordWriteScope {
  readonly registry: RequestContext['registry'];
  readonly baseUrl: string;
  readonly tx: Knex.Transaction;
  readonly actor?: ChangeActor;
}

/** Writes of one kind of record without a request: for plugins and admin code (`services.zaken`). */
export interface RecordWriter {
  create(scope: RecordWriteScope, data: Record<string, unknown>): Promise<Record<string, unknown>>;
  update(scope: RecordWriteScope, record: string, fields: Record<string, unknown>): Promise<Record<string, unknown>>;
  destroy(scope: RecordWriteScope, record: string): Promise<void>;
}
