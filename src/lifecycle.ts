/**
 * The request lifecycle in execution order: the one list a newcomer reads to know what runs when.
 * The plugin host and the `Plugin` type are both derived from it, so the compiler keeps them complete.
 *
 *  1. onRequest     sequential   every request to a registry route, before anything else
 *  2. authenticate  first        the first hook to return a principal wins; none → 401
 *     (core)                     parse and validate the query and body (ajv, from the resource's JSON Schema),
 *                                load what the operation acts on (`ctx.zaak`; for changes also `ctx.current`)
 *  3. authorize     sequential   may throw 403; sees principal, input and current record
 *  4. preHandler    first        the first hook to return a response answers instead of the operation
 *                                (a 304 from a cache); the steps up to serialize are then skipped
 *  5. validate      sequential   writes only: business rules, outside the transaction (may fetch remote data)
 *     (core)                     writes only, inside the transaction: lock the zaken the write acts on,
 *                                check the scopes and run `authorize` again on them as they are now
 *  6. beforeWrite   sequential   writes only, inside the transaction: derive fields on `ctx.data`
 *     (core)                     the storage write, in the same transaction
 *  7. afterWrite    sequential   writes only, same transaction: audit rows, outbox rows
 *     (core)                     commit
 *  8. afterCommit   parallel     writes only, after commit; a throw is logged, never sent to the client
 *  9. serialize     sequential   may replace the response body (each hook gets the previous one's result)
 * 10. onResponse    sequential   every response of the API router, errors included: set headers; also the
 *                                errors no operation answered (unknown path, 405, unreadable body), with
 *                                `ctx.operation.id === 'unrouted'`
 */
export const REQUEST_HOOKS = [
  'onRequest',
  'authenticate',
  'authorize',
  'preHandler',
  'validate',
  'beforeWrite',
  'afterWrite',
  'afterCommit',
  'serialize',
  'onResponse',
] as const;

export type RequestHookName = (typeof REQUEST_HOOKS)[number];

/** How the host runs each hook: one after another, first result wins, or all at once. */
export const HOOK_KIND: Record<RequestHookName, 'sequential' | 'first' | 'parallel'> = {
  onRequest: 'sequential',
  authenticate: 'first',
  authorize: 'sequential',
  preHandler: 'first',
  validate: 'sequential',
  beforeWrite: 'sequential',
  afterWrite: 'sequential',
  afterCommit: 'parallel',
  serialize: 'sequential',
  onResponse: 'sequential',
};

/** Hooks that only run for operations that change data. */
export const WRITE_HOOKS: ReadonlySet<RequestHookName> = new Set(['validate', 'beforeWrite', 'afterWrite', 'afterCommit']);

/**
 * Domain hooks, outside the request order above: a zaak closes or reopens, a zaak or record changes
 * (sequentially inside the write transaction that makes the change), zaken are represented (in
 * every answer and service read that gives them). They run also when no request is involved.
 */
export const ZAAK_HOOKS = ['zaakClosing', 'zaakReopening', 'resourceChanged', 'representZaken'] as const;
export type ZaakHookName = (typeof ZAAK_HOOKS)[number];
