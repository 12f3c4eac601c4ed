/** The records of a zaak as plugins name them, and where a service call reads and writes. */
import type { Knex } from 'knex';

/** The kinds of record a zaak has, by their singular name. */
export type ZaakRecordKind =
  | 'klantcontact'
  | 'resultaat'
  | 'rol'
  | 'status'
  | 'zaakcontactmoment'
  | 'zaakinformatieobject'
  | 'zaakobject'
  | 'zaakverzoek'
  | 'zaakbesluit'
  | 'zaakeigenschap'
  | 'zaaknotitie';

/** The audit trail's who and why. */
export interface ChangeActor {
  clientId?: string;
  applicationLabel?: string;
  userId?: string;
  userRepresentation?: string;
  /** `toelichting`: why (a request's `X-Audit-Toelichting`). */
  reason?: string;
}

/** What a change did: the actions of the audit trail and of notifications. */
export type ChangeAction = 'create' | 'update' | 'partial_update' | 'destroy';

/**
 * Where a service call reads and writes: inside an open transaction (`tx`) or on the storage, with
 * the base URL that resource URLs are built on. A `RequestContext` is one.
 */
export interface ZaakScope {
  readonly baseUrl: string;
  readonly tx?: Knex.Transaction;
  /** Where reads go outside a transaction (a request's `ctx.db`); default the primary. */
  readonly db?: Knex;
}

/** A service-layer write: in the caller's transaction (or one of its own), recorded in the audit trail as `actor`. */
export interface RecordWriteOptions extends ZaakScope {
  /** Who, for the audit trail; default the registry itself (`zaakregister`). */
  readonly actor?: ChangeActor;
}

export interface FindZaakOptions {
  /** Hold the zaak's row (`FOR UPDATE`) until the transaction ends; needs `scope.tx`. */
  lock?: boolean;
  /** Also the fields derived from its records (status, rollen, deelzaken, ...), in the same query. */
  relations?: boolean;
}
