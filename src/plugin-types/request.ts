/**
 * One request as operations and hooks see it: the operation, the context and the registry's services.
 * They name each other (an operation's steps take the context, the context carries its operation and
 * the services, the zaak service takes the context), so they share one module.
 */
import type { Request } from 'express';
import type { Knex } from 'knex';
import type { CatalogClient } from '../catalog/types.js';
import type { Logger } from '../log.js';
import type { Storage } from '../storage/types.js';
import type { AccessSubject, Principal } from './access.js';
import type { MigrationService } from './migration.js';
import type { Outbox } from './outbox.js';
import type { FindZaakOptions, RecordWriteOptions, ZaakRecordKind, ZaakScope } from './records.js';
import type { RemoteClient, RemoteOptions } from './remote.js';
import type { HttpMethod, InvalidParam, JsonSchema } from './schema.js';

/** A query parameter an operation accepts; any other parameter is answered with 400 `unknown-parameters`. */
export interface QueryParameter {
  name: string;
  description?: string;
  /** Schema of the parsed value. `type: array` parameters are comma-separated in the URL. */
  schema: JsonSchema;
  /**
   * On the zaak lists (`zaak_list`, `zaak__zoek`): narrows the rows (and the count) when the parameter
   * is given, with the request at hand (what a hook found for it). Authorization still applies.
   */
  filter?: (query: Knex.QueryBuilder, value: unknown, ctx: RequestContext) => void;
}

/**
 * One endpoint: method, path, input schemas and what it does. The core's resources and plugins
 * register operations the same way; the pipeline wraps every one in the request lifecycle.
 */
export interface Operation {
  /** The operationId of the standard, e.g. `zaak_create`. */
  id: string;
  method: HttpMethod;
  /** OpenAPI path template relative to the base URL, e.g. `/zaken/{uuid}`. */
  path: string;
  /** The resource it acts on, e.g. `zaak`. */
  resource?: string;
  /** `list`, `retrieve`, `create`, `update`, `partial_update`, `destroy`, `search`, ... */
  action: string;
  /** Changes data: runs validate → transaction(beforeWrite → execute → afterWrite) → afterCommit. */
  write: boolean;
  /** False for public endpoints (the OpenAPI document); default true. */
  authenticated?: boolean;
  /** False to leave it out of the served OpenAPI document; default true. */
  documented?: boolean;
  /**
   * The scopes the standard requires, any one of them (`zaken.bijwerken | zaken.geforceerd-bijwerken`).
   * The core refuses (403) unless the principal holds one for every zaak the operation acts on.
   */
  scopes?: string[];
  /**
   * The zaken (type and confidentiality) the request acts on, once `load` ran; default: `ctx.zaak`.
   * None (lists): one of the scopes for any zaaktype suffices and the rows are filtered in SQL.
   */
  accessSubjects?: (ctx: RequestContext) => AccessSubject[];
  queryParameters?: QueryParameter[];
  requestBody?: JsonSchema;
  /**
   * After parsing, before the scope check: find what the request acts on (`ctx.current`, `ctx.zaak`;
   * for a new zaak, its zaaktype and confidentiality in `ctx.data`). Only what authorization needs:
   * nothing here may tell a client that is refused more than that something does not exist.
   */
  load?: (ctx: RequestContext) => Promise<void>;
  /**
   * After the scope check, before `authorize`: for writes, turn the body into `ctx.data` (checks,
   * defaults, derived values, resolved references). Default: data = body.
   */
  prepare?: (ctx: RequestContext) => Promise<void>;
  /**
   * Writes, after the `validate` hooks: the operation's own rules beyond the schema. Its errors join
   * those of the hooks in one 400, after them (the ZGW reference reports type mismatches before the
   * rules of the resource itself).
   */
  validate?: (ctx: RequestContext) => Promise<InvalidParam[]>;
  /**
   * Writes, first thing inside the transaction: lock the rows of the zaken the write acts on and set
   * `ctx.zaak` (and what `accessSubjects` answers) from them as they are now. The core then checks the
   * scopes and runs the `authorize` hooks again: a change committed since `load` (a zaak made more
   * confidential, a record moved) is decided on before anything is written, and the answer shows
   * nothing the client may not see.
   */
  lock?: (ctx: RequestContext) => Promise<void>;
  /** Do the work: read, or write within `ctx.tx`; set `ctx.response` (and `ctx.result` for writes). */
  execute: (ctx: RequestContext) => Promise<void>;
  /**
   * After the work (for writes, after `afterWrite` and commit), before `serialize`: hand the zaken in
   * `ctx.response.body` to the `representZaken` hooks. The core's zaak operations have it.
   */
  represent?: (ctx: RequestContext) => Promise<void> | void;
  /** OpenAPI details: summary, description, the 2xx response schema, extra response headers. */
  openapi: {
    summary: string;
    description?: string;
    tags?: string[];
    /** Schema of the success body, or undefined for 204/HEAD-like answers. */
    responseSchema?: JsonSchema;
    successStatus: number;
    successHeaders?: Record<string, { description: string; schema: JsonSchema }>;
    /** The request body as documented, when it differs from `requestBody` (e.g. a `$ref`). */
    requestSchema?: JsonSchema;
    /** Content type of the success body (default application/json). */
    contentType?: string;
    /** Retrieve operations: document HEAD (`*_headers`) too; default true. */
    head?: boolean;
    /** Documented as deprecated (`deprecated: true`): served, but clients should move off it. */
    deprecated?: boolean;
  };
}

/** What every hook and operation can reach: the registry's services. */
export interface RegistryServices {
  /** The newest API version the registry serves (full semver). */
  readonly apiVersion: string;
  readonly storage: Storage;
  readonly catalog: CatalogClient;
  /** Fetches URLs that clients sent, restricted to the allowed hosts, with timeouts and size caps. */
  readonly remote: RemoteClient;
  /**
   * A client for another remote API of a plugin's own (a Notificaties API): its own hosts and
   * credentials, with the registry's request ids, spans and fetch metrics.
   */
  remoteClient(options: RemoteOptions): RemoteClient;
  readonly log: Logger;
  /** The configured public base URL, when one is set (otherwise each request derives its own). */
  readonly baseUrl?: string;
  /** Reads zaken and their records as clients see them, and moves a zaak between open and closed. */
  readonly zaken: ZaakService;
  /** Deliveries to other registries, enqueued in a change's transaction and delivered after commit. */
  readonly outbox: Outbox;
  /** `null` on an optional, non-nullable field is refused (true) or taken as not sent (false, the default). */
  readonly strictNulls: boolean;
  /** Runs the registry's write operations as parts of one request, in its transaction. */
  readonly operations: OperationRunner;
  /** Export and import of zaken with their whole history (uuids, timestamps, audit trail kept). */
  readonly migration: MigrationService;
}

/** What a part is given: its operation's request body (API field names) and path parameters. */
export interface PartInput {
  /** The path parameters (`{ uuid }` for `/rollen/{uuid}`). */
  params?: Record<string, string>;
  /** The request body, validated against the operation's own schema as a request's would be. */
  body?: Record<string, unknown>;
}

/** What a part answered: as its operation answers a request of its own, before `represent` and `serialize`. */
export interface PartAnswer {
  status: number;
  /** The representation written (`ctx.result`); undefined for a destroy. */
  result?: Record<string, unknown>;
}

/**
 * Runs write operations (the core's and the plugins') as parts of a request that is itself a write:
 * the convenience endpoints of the `handelingen` plugin, which do in one call what a client would
 * otherwise do in several.
 */
export interface OperationRunner {
  /**
   * Runs operation `id` with `input` as a part of `ctx`, a write request inside its transaction (its
   * `execute`): the part is authorized as the request's principal and goes through the steps a request
   * of its own takes, in `ctx.tx`: the body checked against the operation's schema, `load`, the scope
   * check, `prepare`, the `authorize` hooks, the `validate` hooks with the operation's own rules, `lock`
   * with the scopes and `authorize` again, `beforeWrite`, the write and `afterWrite`. Its `afterCommit`
   * hooks run once `ctx` commits. Not for it: `onRequest`, `authenticate`, `preHandler`, `serialize`,
   * `onResponse` (the request had those). Inside the part, `ctx.registry.storage` reads and writes in
   * the transaction, so each part sees what the parts before it wrote; `partCtx.partOf` is `ctx`.
   * A throw (a part's 400, 403, 404) is the part's: the request's transaction rolls everything back.
   */
  run(ctx: RequestContext, id: string, input?: PartInput): Promise<PartAnswer>;
}

export interface ResponseState {
  status: number;
  headers: Record<string, string>;
  /**
   * What is sent: a value to serialize as JSON, a string, or a `Buffer` of the serialized bytes (the
   * `caching` plugin leaves a stored rendering's own bytes here: shared by every read, so replace
   * such a body, never change it in place).
   */
  body?: unknown;
}

/**
 * The typed context of one request, passed to every request hook. The Express request is there to
 * read headers; plugins never patch `req` or `res`: they set `ctx.response` instead.
 */
export interface RequestContext {
  readonly registry: RegistryServices;
  /** The API version the request is served in (full semver): its base path's major. */
  readonly apiVersion: string;
  readonly operation: Operation;
  readonly req: Request;
  /**
   * The request body exactly as received (still content-encoded), for checks over the bytes sent, such
   * as a body signature; undefined without a body. `body` is its parsed, validated form.
   */
  readonly rawBody?: Buffer;
  /** The request's id (`X-Request-Id`, the client's when sane): in its log lines, 5xx bodies and the calls it causes. */
  readonly requestId: string;
  /** The public base URL for this request, e.g. `https://zaken.example.nl/zaken/api/v1`. */
  readonly baseUrl: string;
  params: Record<string, string>;
  /** Query parameters, parsed and validated (lists split, booleans and numbers converted). */
  query: Record<string, unknown>;
  /** The validated request body (read-only fields removed). */
  body?: Record<string, unknown>;
  principal?: Principal;
  /**
   * The current representation, for changes to one existing resource (from `load` on). Reads render
   * it in the operation's `execute`, after `preHandler`: a cached answer then costs no rendering.
   */
  current?: Record<string, unknown>;
  /**
   * The zaak the request acts on: the zaak itself, or the zaak of the record (its own fields, without
   * the derived lists). Authorization is decided on its zaaktype and vertrouwelijkheidaanduiding.
   * Read-only: its nested values may be shared with the zaak's stored rendering (frozen).
   */
  zaak?: Record<string, unknown>;
  /**
   * The revision of `ctx.zaak`, read in the same statement: it changes in the transaction of every
   * change to the zaak, its records or its deelzaken (whatever path writes them). For reads, what the
   * operation renders is read no earlier, so an answer remembered with a revision is that revision's.
   */
  zaakRevision?: string;
  /**
   * The zaak attributes the answer uses, when a `preHandler` trims it to some (`fields` of `_zoek`);
   * undefined: all. The zaak lists (`zaak_list`, `zaak__zoek`) then read the attributes derived from a
   * zaak's records (`rollen`, `status`, `deelzaken`, ...) only when one of them is named here, and
   * otherwise hand out zaken without them (no subselect per record kind): `representZaken` hooks and
   * what follows then see only the zaak's own attributes.
   */
  zaakAttributes?: ReadonlySet<string>;
  /** Writes: the values about to be stored (API field names); `beforeWrite` hooks may derive more. */
  data?: Record<string, unknown>;
  /** Writes: the representation after the write. */
  result?: Record<string, unknown>;
  /** The open transaction, during `beforeWrite`, the storage write and `afterWrite`. */
  tx?: Knex.Transaction;
  /**
   * Where this request reads: for a safe read (an operation that does not write) a read replica when
   * one has replayed this client's last write and is within `maxReplicaLagMs`, else the primary
   * (`registry.storage.knex`); the transaction for a part of a request. Chosen once the client is
   * known; a read that fails on a replica, or a conditional one (`If-None-Match`) not answered 304
   * there, runs again on the primary. Read with it what the answer shows; write never with it.
   */
  db: Knex;
  response: ResponseState;
  /** The error being answered, during `onResponse` of a failed request. */
  error?: unknown;
  /**
   * For an operation run as a part of another request (`registry.operations.run`): that request. Its
   * `operation.id` names the call the change belongs to, e.g. the handeling `zaak_afsluiten`, also for
   * `resourceChanged` hooks (`change.ctx.partOf`).
   */
  readonly partOf?: RequestContext;
}

/** Reads zaken and their records as clients see them, and moves a zaak between open and closed. */
export interface ZaakService {
  /** A zaak of this registry by URL or uuid, as clients see it (its own fields unless `relations`; with them, shaped by `representZaken`). */
  find(scope: ZaakScope, zaak: string, options?: FindZaakOptions): Promise<Record<string, unknown> | undefined>;
  /**
   * Zaken of this registry by URL or uuid, as clients see them (with the derived fields), in a fixed
   * number of queries however many are asked: for loading related zaken of a page at once (shaped
   * by the `representZaken` hooks, as in answers). Zaken
   * that do not exist are left out; the order is that of `zaken`.
   */
  list(scope: ZaakScope, zaken: string[]): Promise<Record<string, unknown>[]>;
  /** The records of one kind of a zaak (or zaken), as clients see them, oldest first. */
  records(scope: ZaakScope, kind: ZaakRecordKind, zaak: string | string[]): Promise<Record<string, unknown>[]>;
  /** Stores zaak fields (API names) directly, without the API's checks: for derived values. */
  update(scope: ZaakScope & { tx: Knex.Transaction }, zaak: string, fields: Record<string, unknown>): Promise<void>;
  /**
   * Closes the zaak in the request's transaction: sets `einddatum` plus whatever `zaakClosing` hooks
   * add to the changes. Returns the changes stored.
   */
  close(ctx: RequestContext, transition: { zaak: Record<string, unknown>; status: Record<string, unknown>; einddatum: string }): Promise<Record<string, unknown>>;
  /** Reopens it: `einddatum`, `archiefnominatie` and `archiefactiedatum` become null, then `zaakReopening` hooks run. */
  reopen(ctx: RequestContext, transition: { zaak: Record<string, unknown>; status: Record<string, unknown> }): Promise<Record<string, unknown>>;
  /**
   * Record writes for trusted code (plugins, admin scripts): the resource's schema and its own checks
   * apply, authorization and the API's request hooks (`validate`, business rules) do not. Each write
   * is audited and announced to `resourceChanged` hooks, exactly like the API's, so relations and
   * notifications follow. `data.zaak` is the zaak's URL or uuid.
   */
  createRecord(scope: RecordWriteOptions, kind: ZaakRecordKind, data: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Changes some fields of a record (by URL or uuid); answers its new representation. */
  updateRecord(scope: RecordWriteOptions, kind: ZaakRecordKind, record: string, fields: Record<string, unknown>): Promise<Record<string, unknown>>;
  destroyRecord(scope: RecordWriteOptions, kind: ZaakRecordKind, record: string): Promise<void>;
  /**
   * Limits a plugin's own query over the `zaak` table to the zaken the request's client may read, as
   * the core's lists do (zrc-006): zaaktypen it holds `scope` for (default `zaken.lezen`), each up to the
   * highest vertrouwelijkheidaanduiding allowed for it; everything for `heeftAlleAutorisaties`, nothing
   * without a principal. The query must have the `zaak` table in scope, as `zaakTable` when aliased.
   * Returns the query. For an endpoint without `accessSubjects`: the core then only checks that the
   * client holds the operation's scopes for some zaaktype.
   */
  limitToAccess(ctx: RequestContext, query: Knex.QueryBuilder, options?: AccessLimitOptions): Knex.QueryBuilder;
}

/** How `limitToAccess` reads the client's authorizations and the query. */
export interface AccessLimitOptions {
  /** The scope the authorizations must hold; default `zaken.lezen`. */
  scope?: string;
  /** The name (or alias) of the `zaak` table in the query; default `zaak`. */
  zaakTable?: string;
}
