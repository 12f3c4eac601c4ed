/** The hooks a plugin may have: the request hooks in lifecycle order, and the domain hooks of a zaak. */
import type { Knex } from 'knex';
import type { RequestHookName } from '../lifecycle.js';
import type { OperationId } from '../operation-ids.js';
import type { ChangeAction, ZaakScope } from './records.js';
import type { Principal } from './access.js';
import type { Exact } from './schema.js';
import type { RequestContext, ResponseState } from './request.js';

type HookFn<Args extends unknown[], R> = (...args: Args) => R | Promise<R>;

/**
 * An operation a request hook is limited to: one of the core's (`OperationId`, listed in
 * `OPERATION_IDS`) or the id of an operation a plugin adds. Any other string is refused when the
 * registry is assembled, with the closest known id as a suggestion.
 */
export type HookOperationId = OperationId | (string & {});

/**
 * A hook is a function, or `{ order, operations, handler }`: `order` moves it before (`pre`) or after
 * (`post`) the others; `operations` (request hooks only) runs it only for requests of those operations,
 * e.g. `{ operations: ['status_create'], handler }`.
 * Order: the hooks of one name run in plugin registration order, `pre` hooks first and `post` hooks
 * last. A throw: a `ProblemError` (`invalidParam`, `validationError`, `new ProblemError(code)`) is
 * answered as that problem; any other error becomes a `PluginError` naming the plugin and the hook,
 * answered as a 500 (`afterCommit` excepted: logged only).
 */
export type Hook<Args extends unknown[], R = void> =
  | HookFn<Args, R>
  | { order?: 'pre' | 'post'; operations?: readonly HookOperationId[]; handler: HookFn<Args, R> };

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
   * Kind: sequential, each hook getting the body the previous one produced: the whole answer (a page,
   * not its items; to shape every zaak wherever it appears, use `representZaken`). Returns: a new body to
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
  /**
   * `request`: an API call; `service`: a `services.zaken` call; `cascade`: removed because its zaak was
   * destroyed; `import`: a zaak written by an import job (`services.migration`), announced once with
   * its records and audit trail already in place: derived data is kept in step, nothing is notified.
   */
  readonly source: 'request' | 'service' | 'cascade' | 'import';
  /** The request, when the change comes from one. */
  readonly ctx?: RequestContext;
}

/**
 * Domain hooks: a zaak closes (its end status is set) or reopens; a zaak or record changes; zaken are
 * represented. Which status closes a zaak is a
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
  /**
   * Kind: sequential, each hook seeing the previous ones' changes. The one place to shape how a zaak
   * looks: it gets the zaken of every answer and read at once (a detail, the items of a list page and
   * of `_zoek`, the answer to a write, the zaken `expand` embeds, `services.zaken.find` with relations
   * and `services.zaken.list`) and changes them in place: add, replace or remove fields. Load what a
   * page needs in one query (`scope.tx ?? scope.db ?? storage.knex`); in a request `scope` is its `RequestContext`.
   * The zaken may be copy-on-write views of stored renderings: set their fields freely, replace
   * (never change in place) their nested values. A shaped zaak is serialized anew; an answer is
   * remembered (ETag, 304) per zaak revision, so shape from the zaak and data that changes with it.
   * Returns: nothing. A throw: that problem in a request, 500 for other errors.
   */
  representZaken: Hook<[zaken: Record<string, unknown>[], scope: ZaakScope]>;
}
