import type { Request } from 'express';
import type { Knex } from 'knex';
import type { RequestHookName } from './lifecycle.js';
import type { JsonSchema, Operation, QueryParameter } from './operation.js';
import type { Migration, Storage } from './storage/types.js';
import type { CatalogClient } from './catalog/types.js';
import type { Logger } from './log.js';
import type { OpenApiFragment, OpenApiTransform } from './openapi/build.js';
import type { RemoteClient } from './remote/fetch.js';
import type { ZaakService } from './resources/zaak/service.js';
import type { DeliveryHandler, Outbox } from './outbox/index.js';

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
/** A hook is a function, or `{ order, handler }` to run it before (`pre`) or after (`post`) the others. */
export type Hook<Args extends unknown[], R = void> = HookFn<Args, R> | { order?: 'pre' | 'post'; handler: HookFn<Args, R> };

export interface RequestHooks {
  /** Sequential. Every request, before authentication. */
  onRequest: Hook<[ctx: RequestContext]>;
  /** First: the first hook to return a principal wins. No principal on a protected operation → 401. */
  authenticate: Hook<[ctx: RequestContext], Principal | undefined>;
  /**
   * Sequential. After input is parsed and the current record loaded; throw a 403 problem to refuse.
   * Writes on zaken run it again inside their transaction, with `ctx.tx` set and `ctx.zaak` as locked.
   */
  authorize: Hook<[ctx: RequestContext]>;
  /**
   * First: after `authorize`, before the operation's work (and, for writes, before `validate`). The
   * first hook to return a response answers the request instead: the operation, the write hooks and
   * `serialize` do not run, `onResponse` does. For answers that need no work, such as a 304 from a cache.
   */
  preHandler: Hook<[ctx: RequestContext], ResponseState | undefined>;
  /** Sequential, writes only, before the transaction. Throw a 400 problem for a broken business rule. */
  validate: Hook<[ctx: RequestContext]>;
  /** Sequential, writes only, inside the transaction, before the storage write: derive fields on `ctx.data`. */
  beforeWrite: Hook<[ctx: RequestContext]>;
  /** Sequential, writes only, same transaction, after the storage write: `ctx.result` holds the new state. */
  afterWrite: Hook<[ctx: RequestContext]>;
  /** Parallel, writes only, after commit. A throw is logged, never answered. */
  afterCommit: Hook<[ctx: RequestContext]>;
  /** Sequential. Return a new body to replace the response body, or nothing to keep it. */
  serialize: Hook<[body: unknown, ctx: RequestContext], unknown>;
  /**
   * Sequential. Every response of the API router, errors included (`ctx.error` is set then); the
   * errors no operation answered (unknown path, 405, unreadable body) too, with `ctx.operation` = `UNROUTED`.
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
  zaakClosing: Hook<[transition: ZaakTransition]>;
  zaakReopening: Hook<[transition: ZaakTransition]>;
  /** Sequential, inside the write transaction: enqueue deliveries, keep derived data in step. A throw rolls back. */
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
  /** Names of plugins that must be registered too; checked when the registry is assembled. */
  dependencies?: string[];
  /** Sequential, once, while the registry is assembled (before migrations run). */
  setup?: (api: SetupApi) => void | Promise<void>;
  /** Sequential in reverse registration order, when the registry closes. */
  close?: () => void | Promise<void>;
}
