/**
 * The types a plugin sees, in one leaf module: it imports only types, and only from modules that import
 * nothing of the core themselves (the lifecycle list, the storage, catalog and logger types), so the
 * dependency direction stays core → resources → plugins (`npm run lint:layers` checks it). The
 * implementation modules import their public types from here and re-export them.
 */
import type { Request } from 'express';
import type { Knex } from 'knex';
import type { CatalogClient } from './catalog/types.js';
import type { RequestHookName } from './lifecycle.js';
import type { Logger } from './log.js';
import type { Migration, Storage } from './storage/types.js';

/** A JSON Schema in the OpenAPI 3.0 dialect: one object serves ajv validation and the served document. */
export type JsonSchema = Record<string, unknown>;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

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
  };
}

/** One authorization of an application for one zaaktype (the Autorisaties API shape, component `zrc`). */
export interface ZaakAuthorization {
  zaaktype: string;
  scopes: string[];
  maxVertrouwelijkheidaanduiding: string;
}

/** Who is calling, as established by an `authenticate` hook. */
export interface Principal {
  clientId: string;
  /** The application's label (`applicatieWeergave` in the audit trail). */
  applicationLabel?: string;
  userId?: string;
  userRepresentation?: string;
  /** `heeftAlleAutorisaties`: every operation on every zaak. */
  allAuthorizations: boolean;
  authorizations: ZaakAuthorization[];
  /** Which mechanism authenticated the request (`development`, `zgw-jwt`, `oauth`, ...). */
  method: string;
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
  /** Writes: the values about to be stored (API field names); `beforeWrite` hooks may derive more. */
  data?: Record<string, unknown>;
  /** Writes: the representation after the write. */
  result?: Record<string, unknown>;
  /** The open transaction, during `beforeWrite`, the storage write and `afterWrite`. */
  tx?: Knex.Transaction;
  response: ResponseState;
  /** The error being answered, during `onResponse` of a failed request. */
  error?: unknown;
}

type HookFn<Args extends unknown[], R> = (...args: Args) => R | Promise<R>;
/**
 * A hook is a function, or `{ order, handler }` to move it before (`pre`) or after (`post`) the others.
 * Order: the hooks of one name run in plugin registration order, `pre` hooks first and `post` hooks
 * last. A throw: a `ProblemError` (`invalidParam`, `validationError`, `new ProblemError(code)`) is
 * answered as that problem; any other error becomes a `PluginError` naming the plugin and the hook,
 * answered as a 500 (`afterCommit` excepted: logged only).
 */
export type Hook<Args extends unknown[], R = void> = HookFn<Args, R> | { order?: 'pre' | 'post'; handler: HookFn<Args, R> };

/**
 * The request hooks, in the order they run for one request (`REQUEST_HOOKS`). Kind: *sequential* hooks
 * run one after the other and each is awaited; *first* hooks stop at the first that returns a value;
 * *parallel* hooks run together.
 */
export interface RequestHooks {
  /**
   * Kind: sequential. Runs on every request of a registry route, before authentication.
   * Returns: nothing. A throw: the request is answered with that problem (500 for other errors).
   */
  onRequest: Hook<[ctx: RequestContext]>;
  /**
   * Kind: first. After `onRequest`. Returns: a `Principal` to accept the request (the first hook
   * returning one wins; later ones do not run), or undefined to leave it to the next. No principal on an
   * authenticated operation → 401. A throw: that problem (a 401 for a bad token), 500 for other errors.
   */
  authenticate: Hook<[ctx: RequestContext], Principal | undefined>;
  /**
   * Kind: sequential. After input is parsed, the operation's `load` ran and the scopes were checked.
   * Writes on zaken run it again inside their transaction, with `ctx.tx` set and `ctx.zaak` as locked.
   * Returns: nothing. A throw: refuses the request (throw a 403 problem: `permission_denied`).
   */
  authorize: Hook<[ctx: RequestContext]>;
  /**
   * Kind: first. After `authorize`, before the operation's work (for writes, before `validate`).
   * Returns: a `ResponseState` to answer the request instead (the operation, the write hooks and
   * `serialize` do not run, `onResponse` does), or undefined to go on. For answers that need no work,
   * such as a 304 from a cache. A throw: that problem.
   */
  preHandler: Hook<[ctx: RequestContext], ResponseState | undefined>;
  /**
   * Kind: sequential. Writes only, before the transaction (it may fetch remote data). Returns: nothing.
   * A throw of a 400 problem (`invalidParam`) is a broken business rule: the later `validate` hooks do
   * not run, and its invalid params are answered with those of the operation's own rules in one 400.
   */
  validate: Hook<[ctx: RequestContext]>;
  /**
   * Kind: sequential. Writes only, inside the transaction (`ctx.tx`), before the storage write: derive
   * fields on `ctx.data`. Returns: nothing. A throw rolls the transaction back and is answered.
   */
  beforeWrite: Hook<[ctx: RequestContext]>;
  /**
   * Kind: sequential. Writes only, same transaction, after the storage write: `ctx.result` holds the
   * new state. Returns: nothing. A throw rolls the whole write back and is answered.
   */
  afterWrite: Hook<[ctx: RequestContext]>;
  /**
   * Kind: parallel. Writes only, after commit. Returns: nothing. A throw is logged (naming the plugin
   * and hook), never answered: the write has happened. Work that must not be lost belongs in the outbox.
   */
  afterCommit: Hook<[ctx: RequestContext]>;
  /**
   * Kind: sequential, each hook getting the body the previous one produced. Returns: a new body to
   * replace the response body, or undefined to keep it. A throw: that problem, 500 for other errors.
   * A zaak in the body may be a copy-on-write view of a shared rendering: change its fields freely,
   * replace (never change in place) its nested values, copy it with a spread, not `structuredClone`.
   */
  serialize: Hook<[body: unknown, ctx: RequestContext], unknown>;
  /**
   * Kind: sequential. Every response of the API router, errors included (`ctx.error` is set then),
   * also the errors no operation answered (unknown path, 405, unreadable body), with `ctx.operation`
   * = `UNROUTED` (id `unrouted`): set headers on `ctx.response`. Returns: nothing. A throw: answered as that problem (500 for other
   * errors); while an error is being answered, it is logged and the first answer stands.
   */
  onResponse: Hook<[ctx: RequestContext]>;
}

// The compiler checks that RequestHooks has exactly the hooks of the lifecycle list.
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const hooksMatchLifecycle: Exact<keyof RequestHooks, RequestHookName> = true;
void hooksMatchLifecycle;

/**
 * A zaak changing between open and closed, announced to the `zaakClosing` / `zaakReopening` hooks
 * inside the write transaction (`ctx.tx`). The hooks may add zaak fields to `changes`; the core then
 * stores them together, so the transition is all or nothing.
 */
export interface ZaakTransition {
  readonly ctx: RequestContext;
  /** The zaak's own fields before the change, as clients see them. */
  readonly zaak: Record<string, unknown>;
  /** The status that closes or reopens it. */
  readonly status: Record<string, unknown>;
  /** Zaak fields (API names) to store: `einddatum` and, from hooks, archive values. */
  readonly changes: Record<string, unknown>;
}

/** What a change did: the actions of the audit trail and of notifications. */
export type ChangeAction = 'create' | 'update' | 'partial_update' | 'destroy';

/**
 * A zaak or one of its records was created, changed or removed, announced to `resourceChanged` hooks
 * inside the transaction that makes the change: whatever a hook writes on `tx` (an outbox delivery)
 * commits or rolls back with it. Every path announces it: API requests, `registry.services.zaken`
 * record writes from plugins or admin code, and records removed together with their zaak.
 */
export interface ResourceChange {
  readonly tx: Knex.Transaction;
  /** The base URL the URLs below are built on. */
  readonly baseUrl: string;
  /** `zaak`, `status`, `zaakinformatieobject`, ... (the audit trail's and notifications' names). */
  readonly resource: string;
  readonly action: ChangeAction;
  readonly resourceUrl: string;
  /** URL of the zaak the resource belongs to (the zaak itself for `zaak`). */
  readonly hoofdObject: string;
  /** That zaak's own fields: after the change, or as it was when it is being destroyed. */
  readonly zaak: Record<string, unknown>;
  /** The representation before (null when created) and after (null when destroyed). */
  readonly before: Record<string, unknown> | null;
  readonly after: Record<string, unknown> | null;
  /** `request`: an API call; `service`: a `services.zaken` call; `cascade`: removed because its zaak was destroyed. */
  readonly source: 'request' | 'service' | 'cascade';
  /** The request, when the change comes from one. */
  readonly ctx?: RequestContext;
}

/**
 * Domain hooks: a zaak closes (its end status is set) or reopens; a zaak or record changes. Which status closes a zaak is a
 * business rule (the zrc-rules plugin decides and calls `registry.zaken.close`); what closing implies
 * besides `einddatum` (archive parameters) is for these hooks. Sequential, in registration order.
 */
export interface ZaakHooks {
  /**
   * Kind: sequential, inside the transaction that sets the zaak's end status. Add zaak fields (archive
   * values) to `transition.changes`. Returns: nothing. A throw rolls the status write back and is answered.
   */
  zaakClosing: Hook<[transition: ZaakTransition]>;
  /**
   * Kind: sequential, inside the transaction that reopens the zaak (a status after its end status).
   * Returns: nothing. A throw rolls the change back and is answered.
   */
  zaakReopening: Hook<[transition: ZaakTransition]>;
  /**
   * Kind: sequential, inside the transaction of every change of a zaak or record, whatever its path
   * (API, `services.zaken`, cascade): enqueue deliveries, keep derived data in step. Returns: nothing.
   * A throw rolls the change back (a request answers it).
   */
  resourceChanged: Hook<[change: ResourceChange]>;
}

/** One version of the API a registry serves, at its own base path (`…/v{major}`). */
export interface ApiVersion {
  /** Full semver: `info.version` of its OpenAPI document and the `API-Version` header of its responses. */
  version: string;
  /** Adjusts this version's OpenAPI document (documents a changed representation, a deprecation). */
  document?: (document: Record<string, unknown>) => void;
  /** Headers on every response of this version, beside `API-Version` (a deprecation schedule). */
  headers?: Record<string, string>;
}

/** What `setup` receives: the ways a plugin extends the registry. Calling them after start throws. */
export interface SetupApi {
  readonly registry: RegistryServices;
  /** Add an endpoint; it runs the same request lifecycle as the built-in ones. */
  addOperation(operation: Operation): void;
  /** Accept an extra query parameter on an operation (it becomes known, validated and documented). */
  addQueryParameter(operationId: string, parameter: QueryParameter): void;
  /** Knex migrations for the plugin's own tables; names should start with the plugin name. */
  addMigrations(migrations: Migration[]): void;
  /**
   * Merge a fragment (paths, components, headers of responses) into the served OpenAPI document, or
   * give a function that changes the whole document once every fragment is merged.
   */
  addOpenApi(fragment: OpenApiFragment | OpenApiTransform): void;
  /** Register a problem code in the error catalogue. */
  defineProblem(code: string, status: number, title: string): void;
  /**
   * Deliver the outbox's deliveries of `kind` (by convention the plugin's name) with `handler`: after
   * commit, in the background, retried with backoff until delivered or given up.
   */
  addDeliveryHandler(kind: string, handler: DeliveryHandler): void;
  /**
   * Serve these API versions, each at its own base path (default: one, `info.version`). Majors must
   * differ; requests carry their version in `ctx.apiVersion`. How many and which is the caller's policy.
   */
  setApiVersions(versions: ApiVersion[]): void;
  /** Accept an extra property in an operation's JSON request body (validated and documented). */
  addBodyProperty(operationId: string, name: string, schema: JsonSchema): void;
  /** The operations registered so far (the core's and earlier plugins'). */
  operations(): readonly Operation[];
}

/**
 * A plugin: a plain object with a name and any hooks. Write it as a factory (`caching(options)`)
 * returning the object, like Rollup and Vite plugins.
 */
export interface Plugin extends Partial<RequestHooks>, Partial<ZaakHooks> {
  name: string;
  /**
   * The plugin API version the plugin is written against (`major.minor`, the host's is
   * `PLUGIN_API_VERSION`). A host of another major, or of an older minor, refuses to load it.
   */
  apiVersion?: string;
  /** Names of plugins that must be registered too; checked when the registry is assembled. */
  dependencies?: string[];
  /**
   * Kind: sequential, once per plugin in registration order, while `createRegistry` assembles the
   * registry (before migrations run). Returns: nothing (may be async). A throw stops `createRegistry`
   * with a `PluginError` naming the plugin and `setup`.
   */
  setup?: (api: SetupApi) => void | Promise<void>;
  /**
   * Kind: sequential, in reverse registration order, when the registry closes (after requests drained
   * and the outbox stopped, before the storage closes). A throw is logged; the others still close.
   */
  close?: () => void | Promise<void>;
  /**
   * Never set: a function has `call`, so a plugin factory where its plugin belongs (`zrcRules` for
   * `zrcRules()`) is a type error; `createRegistry` refuses it from JavaScript too.
   */
  call?: never;
}

/** One entry of `invalidParams`: a dotted/indexed field name (`verlenging.duur`, `relevanteAndereZaken.0`). */
export interface InvalidParam {
  name: string;
  code: string;
  reason: string;
}

/** What an authorization is decided on: the zaak's type and confidentiality. */
export interface AccessSubject {
  zaaktype: string;
  vertrouwelijkheidaanduiding: string;
}

/**
 * A change to the whole document, run after every fragment is merged: for what a fragment cannot
 * name in advance, such as a header on every response of every operation.
 */
export type OpenApiTransform = (document: Record<string, unknown>) => void;

/** Part of an OpenAPI document that plugins merge in (components, extra paths, tags). */
export interface OpenApiFragment {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema>; [section: string]: Record<string, unknown> | undefined };
  tags?: { name: string; description?: string }[];
}

/**
 * Where a service call reads and writes: inside an open transaction (`tx`) or on the storage, with
 * the base URL that resource URLs are built on. A `RequestContext` is one.
 */
export interface ZaakScope {
  readonly baseUrl: string;
  readonly tx?: Knex.Transaction;
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

/** Reads zaken and their records as clients see them, and moves a zaak between open and closed. */
export interface ZaakService {
  /** A zaak of this registry by URL or uuid, as clients see it (its own fields unless `relations`). */
  find(scope: ZaakScope, zaak: string, options?: FindZaakOptions): Promise<Record<string, unknown> | undefined>;
  /**
   * Zaken of this registry by URL or uuid, as clients see them (with the derived fields), in a fixed
   * number of queries however many are asked: for loading related zaken of a page at once. Zaken
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
}

/** The audit trail's who and why. */
export interface ChangeActor {
  clientId?: string;
  applicationLabel?: string;
  userId?: string;
  userRepresentation?: string;
  /** `toelichting`: why (a request's `X-Audit-Toelichting`). */
  reason?: string;
}

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
  | 'zaakeigenschap';

/** Per call: a signal that aborts it early (an outbox delivery's timeout or shutdown). */
export interface RemoteCallOptions {
  signal?: AbortSignal;
}

/** Credentials for a remote ZGW API: the registry signs a ZGW JWT (HS256) with them. */
export interface RemoteCredentials {
  clientId: string;
  secret: string;
}

export interface RemoteOptions {
  /**
   * Hosts (`host` or `host:port`) the registry may fetch from. Anything else is refused before a
   * connection is made: the SSRF guard for URLs that clients send.
   */
  allowedHosts: string[];
  /** One deadline per request over the whole exchange (connecting, headers, body), default 5000 ms. */
  timeoutMs?: number;
  /** Largest response body accepted, default 1 MiB. */
  maxBytes?: number;
  /** Credentials per host (`host` or `host:port`). */
  credentials?: Record<string, RemoteCredentials>;
  /** Called after each exchange with an allowed host (metrics): its host, outcome and duration. */
  onExchange?: (exchange: RemoteExchange) => void;
}

/** One finished exchange: the host is always an allowed one, so its values are bounded. */
export interface RemoteExchange {
  host: string;
  outcome: 'ok' | RemoteFailure;
  seconds: number;
}

/**
 * Why fetching a remote resource failed: `not-allowed` (host not in the allow-list), `timeout`,
 * `network`, `too-large`, `status` (not 200), `not-json`, `invalid-resource` (not the expected shape).
 */
export type RemoteFailure = 'not-allowed' | 'timeout' | 'network' | 'too-large' | 'status' | 'not-json' | 'invalid-resource';

export interface RemoteClient {
  /** GET a JSON document; throws `RemoteError` unless the answer is 200 with a JSON body. */
  getJson<T = unknown>(url: string, options?: RemoteCallOptions): Promise<T>;
  /**
   * Send a JSON body (POST, PUT) or none (DELETE), under the same rules as `getJson`; resolves with
   * the JSON answer, undefined when it is empty. Throws `RemoteError` unless the answer is 2xx.
   */
  sendJson<T = unknown>(method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, options?: RemoteCallOptions): Promise<T | undefined>;
  isAllowed(url: string): boolean;
}

/** One delivery to enqueue: which handler delivers it, to where, and what. */
export interface Delivery {
  /** The handler that delivers it (a plugin's name, e.g. `notifications`). */
  kind: string;
  /** Where it goes (a host, `docs.example.nl`): the unit of the per-target concurrency limit. */
  target: string;
  /** Deliveries with the same key go one after the other, in enqueue order (e.g. a relation's create before its delete). */
  key?: string;
  payload: Record<string, unknown>;
}

/** A delivery as stored: pending (waiting, in flight or backing off) or failed (gave up; kept until retried). */
export interface OutboxEntry {
  id: number;
  kind: string;
  target: string;
  key: string | null;
  payload: Record<string, unknown>;
  status: 'pending' | 'failed';
  attempts: number;
  createdAt: string;
  nextAttemptAt: string;
  lastError: string | null;
  /** The request that enqueued it: sent on the delivery as `X-Request-Id`. */
  requestId: string | null;
}

export interface OutboxCounts {
  pending: number;
  failed: number;
  /** Age of the oldest pending delivery in ms (0 when none): how far delivery lags behind. */
  oldestPendingMs: number;
  byKind: Record<string, { pending: number; failed: number }>;
}

export interface OutboxSelection {
  ids?: number[];
  status?: 'pending' | 'failed';
  kind?: string;
}

/** What a handler receives: the stored delivery, and a signal that aborts it (timeout, shutdown). */
export interface OutboxDelivery {
  id: number;
  kind: string;
  target: string;
  key: string | null;
  payload: Record<string, unknown>;
  /** This attempt's number, from 1. */
  attempt: number;
  createdAt: string;
  signal: AbortSignal;
}

/** Delivers one delivery; resolves when the target has it. A throw is a failed attempt. */
export type DeliveryHandler = (delivery: OutboxDelivery) => Promise<void>;

export interface DispatcherStats {
  inFlight: number;
  /** Claimed by this instance: in flight, claimed ahead waiting for a slot, and delivered with the deletion of its row under way. */
  claimed: number;
  /** Since start, in this instance. */
  delivered: number;
  failedAttempts: number;
  gaveUp: number;
}

/**
 * The transactional outbox: deliveries to other registries are written in the transaction of the
 * change they announce (so they exist exactly when the change does) and delivered after commit, with
 * retries, by the dispatcher of any instance on the same database.
 */
export interface Outbox {
  /**
   * Enqueue on the change's transaction (`change.tx`, `ctx.tx`); on the storage only for changes outside one.
   * In a transaction the row travels with the transaction's next statement or its `COMMIT` (one round trip
   * less): it resolves before the row is written, and a row that cannot be written fails the transaction.
   */
  enqueue(db: Knex | Knex.Transaction, deliveries: Delivery | Delivery[]): Promise<void>;
  /** Stored deliveries, oldest first (default 100): pending ones and failed ones. */
  list(selection?: OutboxSelection & { limit?: number }): Promise<OutboxEntry[]>;
  /** Makes failed (or backing-off) deliveries due now with fresh attempts; answers how many. */
  retry(selection: OutboxSelection): Promise<number>;
  /** For metrics: stored counts per state and kind, and this instance's dispatcher counters. */
  counts(): Promise<OutboxCounts & DispatcherStats>;
  /** Delivers what is due now in this instance and waits for it. */
  deliverDue(): Promise<void>;
}
