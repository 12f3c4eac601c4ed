/**
 * The plugin API: what a plugin (and the package's users) may build on, everything the package exports
 * except the registry factory itself, so a built-in plugin can import it without a cycle through
 * `createRegistry`'s presets. Its types live in the leaf `plugin-types.ts`.
 *
 * A plugin is a `Plugin` object: a `name`, optionally `apiVersion` (checked against
 * `PLUGIN_API_VERSION`), `dependencies`, `setup` (`SetupApi`: operations, query parameters, body
 * properties, migrations, OpenAPI fragments, problem codes, delivery handlers, API versions) and
 * `close`, and any of the hooks of `RequestHooks` (in request order: onRequest, authenticate,
 * authorize, preHandler, validate, beforeWrite, afterWrite, afterCommit, serialize, onResponse) and
 * `ZaakHooks` (zaakClosing, zaakReopening, resourceChanged, representZaken). Each hook's documentation
 * gives its kind, when it runs, what it may return and what a throw does; `Hook` gives the order and how
 * to limit a request hook to operations (`OPERATION_IDS`). The guide is `docs/plugins.md`.
 *
 * @packageDocumentation
 */
export type { Plugin, SetupApi, RequestContext, OperationRunner, PartInput, PartAnswer, RequestHooks, ZaakHooks, ZaakTransition, ResourceChange, ChangeAction, Hook, HookOperationId, Principal, ZaakAuthorization, RegistryServices, ResponseState, ApiVersion, CounterOptions, MetricCounter } from './plugin.js';
export type { MigrationService, ZaakBundle, RewriteRule, LineSource, LineOutcome, ImportOptions, ImportProgress, ImportResult, ReportLine, VerificationReport } from './plugin.js';
export type { ZaakService, ZaakScope, FindZaakOptions, RecordWriteOptions, AccessLimitOptions } from './resources/zaak/service.js';
export type { ChangeActor } from './resources/audittrail/record.js';
export {
  DeliveryError,
  type Outbox,
  type Delivery,
  type DeliveryHandler,
  type OutboxDelivery,
  type OutboxEntry,
  type OutboxCounts,
  type OutboxSelection,
  type DispatcherOptions,
  type DispatcherStats,
} from './outbox/index.js';
export type { TlsOptions } from './http/tls.js';
export type { ZaakRecordKind } from './resources/records/index.js';
export { REQUEST_HOOKS, HOOK_KIND, ZAAK_HOOKS, type RequestHookName, type ZaakHookName } from './lifecycle.js';
export { OPERATION_IDS, type OperationId } from './operation-ids.js';
export { UNROUTED, type Operation, type QueryParameter, type JsonSchema, type HttpMethod, type Exact } from './operation.js';
export { ProblemError, validationError, invalidParam, defineProblem, problemCatalogue, type InvalidParam, type ProblemBody } from './problem.js';
export { PluginError, PLUGIN_API_VERSION } from './plugin-host.js';
export { checkOptions, optionsSchema, OptionsError } from './options.js';
export { closest, closestOperation } from './suggest.js';
export { KANAAL_ZAKEN_PUBLISHED, KANAAL_ZAKEN_KENMERKEN, isPublishedOnKanaalZaken, type NotificationAction } from './kanaal-zaken.js';
export { reportCsv } from './migration/verify.js';
export { TtlCache } from './remote/cache.js';
export { toJson, toPayload } from './http/prerendered.js';
export { DEFERRED_WRITE } from './storage/statement-batching.js';
export { DatabaseConnectionError, pgliteStorage, postgresStorage, openStorage, type Storage, type Migration, type PgliteOptions, type PostgresOptions, type ReplicaRouting, type ReplicaState } from './storage/index.js';
export { httpCatalog, type HttpCatalogOptions } from './catalog/http-catalog.js';
export { staticCatalog, type StaticCatalogData } from './catalog/static-catalog.js';
export type { CatalogClient, CatalogObject, ZaakType, StatusType, CatalogKind } from './catalog/types.js';
export { remoteClient, RemoteError, type RemoteClient, type RemoteOptions, type RemoteCredentials, type RemoteCallOptions, type RemoteSendOptions, type RemoteBody, type RemoteAnswer } from './remote/fetch.js';
export { referenceError, remoteReason, upstream, deliveryFailure } from './remote/errors.js';
export { consoleLogger, type Logger, type LogLevel } from './log.js';
export { jsonLogger, pinoLogger, type JsonLoggerOptions, type PinoBackedLogger } from './ops/logger.js';
export { REQUEST_ID_HEADER } from './ops/request-scope.js';
export type { OpenApiFragment, OpenApiTransform } from './openapi/build.js';
export {
  authenticationPlugins,
  zgwJwt,
  signZgwJwt,
  staticAuthorizations,
  autorisatiesApi,
  checkApplications,
  AUTORISATIES_WEBHOOK_PATH,
  type AuthOptions,
  type AutorisatiesNotifications,
  type ClientSecrets,
  type ZgwJwtOptions,
  type ZgwClaims,
  type AutorisatiesApiOptions,
  type Applicatie,
  type Autorisatie,
  type AuthorizationSource,
} from './auth/index.js';
export type { AccessSubject } from './resources/shared/access.js';
export { grantedScopes, hasAnyScope } from './resources/shared/access.js';
