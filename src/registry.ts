import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTlsServer, type TlsOptions } from './http/tls.js';
import express, { type RequestHandler, type Router } from 'express';
import { authenticationPlugins, type AuthOptions } from './auth/index.js';
import { MIN_SECRET_BYTES, secretProblems } from './auth/secrets.js';
import { httpCatalog } from './catalog/http-catalog.js';
import type { CatalogClient } from './catalog/types.js';
import { DEVELOPMENT_WARNING, developmentMode } from './development.js';
import { apiRootOperation } from './http/api-root.js';
import { chain } from './http/chain.js';
import { errorHandler } from './http/error-handler.js';
import { notFound } from './http/not-found.js';
import { buildRouter } from './http/router.js';
import { operationRunner } from './http/parts.js';
import type { Logger } from './log.js';
import { accessLog } from './ops/access-log.js';
import { docsRouter } from './ops/docs.js';
import { healthHandler, readinessCheck, readinessHandler } from './ops/health.js';
import { listenHost, logDevelopmentListening } from './ops/listen-address.js';
import { jsonLogger, pinoLogger, withRequestIds } from './ops/logger.js';
import { registryMetrics } from './ops/metrics.js';
import { traceQueries } from './ops/tracing.js';
import { errorCatalogueAt, requestScope } from './ops/request-scope.js';
import { drainableServer, RunningOperations, startListening, type DrainableServer } from './ops/shutdown.js';
import { buildOpenApi, type OpenApiInfo } from './openapi/build.js';
import { openApiOperations } from './openapi/serve.js';
import { OPERATION_IDS } from './operation-ids.js';
import { checkHookOperations, PluginHost } from './plugin-host.js';
import { runSetups, type Assembly } from './assembly.js';
import type { Exact, Plugin, RegistryServices, ResourceChange } from './plugin.js';
import { problemCatalogue } from './problem.js';
import { audittrailOpenApi, audittrailOperations } from './resources/audittrail/resource.js';
import { zaakRecordResources } from './resources/records/index.js';
import { removalAnnouncer, zaakService } from './resources/zaak/service.js';
import { migrationService } from './migration/index.js';
import { presetPlugins, type PresetName } from './presets.js';
import { checkRegistryOptions, type RegistryOptionName } from './registry-options.js';
import { zaakOpenApi, zaakOperations } from './resources/zaak/resource.js';
import { zaaknummerOpenApi, zaaknummerOperations } from './resources/zaaknummer/resource.js';
import { remoteClient, type RemoteOptions } from './remote/fetch.js';
import { createOutbox, type DispatcherOptions, type Outbox } from './outbox/index.js';
import { startCountFolding } from './resources/zaak/count-folding.js';
import { coreMigrations } from './storage/migrations/index.js';
import { loggingProgress } from './storage/migration-progress.js';
import { handOver } from './storage/handover.js';
import { replicaDetail } from './storage/replicas.js';
import type { Storage } from './storage/types.js';

/** The Zaken API version this registry implements; `info.version` and the `API-Version` header. */
export const ZAKEN_API_VERSION = '1.8.0';

export interface RegistryOptions {
  /**
   * Public base URL, e.g. `https://zaken.example.nl/zaken/api/v1`: resource URLs are built on it.
   * Without it, each request derives it from its Host header and mount path.
   */
  baseUrl?: string;
  /**
   * A storage (`pgliteStorage`, `postgresStorage`; their promise is awaited) or a database string
   * (`memory`, a directory, `postgres://…`). Default `memory`.
   */
  storage?: Storage | Promise<Storage> | string;
  /** Where types are looked up. Default: `httpCatalog` over the `remote` settings. */
  catalog?: CatalogClient;
  /** Remote fetching of URLs clients send: allowed hosts, timeout, size cap, credentials. */
  remote?: Partial<RemoteOptions>;
  /**
   * How requests are authenticated and authorized: ZGW JWTs of the configured clients, checked
   * against applications from a source (`staticAuthorizations`, `autorisatiesApi`). `'development'`
   * turns authentication off (with a loud warning). Without either, only authentication plugins
   * (e.g. `oauth`) let requests in; everything else is 401.
   */
  authorization?: 'development' | AuthOptions;
  /**
   * The built-in plugins to start from: `standard` (default) is the registry as the standard describes it
   * (`zrcRules`, `archive`, `registrySync`, `caching`, `expand`, `geoCrs`); `none` gives the bare core
   * (schema-checked, without those rules). A plugin in `plugins` with the same name replaces the preset's.
   */
  preset?: PresetName;
  /** Plugins, in order, after the preset's; one with the name of a preset plugin replaces it (`zrcRules({ ... })` to change its options). */
  plugins?: (Plugin | Plugin[])[];
  /** Default: pino JSON lines on stdout. Pass `pinoLogger(yourPino)` to share a host's pino (the access log then uses it too). */
  logger?: Logger;
  /**
   * On `close`, how long requests in flight may take to finish before their connections are closed
   * and the database with them (default 10000 ms); also operations whose clients left.
   */
  drainTimeoutMs?: number;
  /**
   * On `close`, how long new connections are still served, with `Connection: close`, while readiness
   * answers 503 (default 0 ms; within `drainTimeoutMs`): set it to the time your load balancer takes
   * to see readiness fail. After it the listener closes once no connection waits in the accept queue
   * (closing would reset them); requests on connections taken meanwhile are answered 503 with
   * `Retry-After`. Connections that come after the close are refused before they connect.
   */
  drainGraceMs?: number;
  /** Apply pending migrations while assembling (default true); otherwise call `migrate()` yourself. */
  migrate?: boolean;
  /** `info` of the OpenAPI document; `version` defaults to the implemented Zaken API version. */
  info?: Partial<OpenApiInfo>;
  /** The outbox dispatcher: retries, timeouts, concurrency; `dispatch: false` leaves delivering to other instances. */
  outbox?: DispatcherOptions;
  /**
   * Refuse `null` on optional fields the contract declares non-nullable (400), as the contract says.
   * Default false: such a `null` counts as not sent, as clients of other ZGW registries mean it.
   */
  strictNulls?: boolean;
}

// The compiler checks that the schema of createRegistry's options names exactly these options.
const optionsMatchSchema: Exact<keyof RegistryOptions, RegistryOptionName> = true;
void optionsMatchSchema;

/** One API version as the registry serves it. */
export interface ServedApiVersion {
  readonly version: string;
  /** Its API reference page and error catalogue; `router` serves them at `<basePath>/docs`. */
  readonly docs: Router;
  /** Where to mount it, e.g. `/zaken/api/v1` (the path of the configured base URL, major replaced). */
  readonly basePath: string;
  readonly router: Router;
}

export interface Registry {
  /**
   * The newest version's router: `app.use('/zaken/api/v1', registry.router)`; `mount(app)` mounts every
   * version. It serves the API reference and the error catalogue at `<base>/docs` too, which problem
   * `type`s point into.
   */
  readonly router: Router;
  /** Every version served, oldest first (one unless a plugin such as `versioning` sets more). */
  readonly versions: readonly ServedApiVersion[];
  /** Liveness (`GET /healthz` standalone): 200 while the process answers; no I/O. */
  readonly health: RequestHandler;
  /** Readiness (`GET /readyz` standalone): 200, or 503 naming the failing check (shutdown, database, migrations). */
  readonly ready: RequestHandler;
  /**
   * The newest version's API reference (Swagger UI, assets served locally) and error catalogue, as
   * `router` serves them at `<base>/docs`; to serve them elsewhere as well: `app.use('/reference', registry.docs)`.
   */
  readonly docs: Router;
  /** Prometheus metrics (`GET /metrics` standalone, or on `listen`'s `metricsPort`); keep it off the public network. */
  readonly metrics: RequestHandler;
  /** Mounts every version's router at its base path on an Express app or router. */
  mount(app: Pick<Router, 'use'>): void;
  readonly services: RegistryServices;
  readonly plugins: readonly Plugin[];
  /** Deliveries to other registries: list, retry, counts (also `services.outbox`). */
  readonly outbox: Outbox;
  /** The OpenAPI document of a version (default the newest) as served, with a relative server URL. */
  openapi(version?: string): Record<string, unknown>;
  /** Applies the core's and the plugins' pending migrations; returns their names. */
  migrate(): Promise<string[]>;
  /**
   * Serves the registry on its own Express app at the base URL's path, with `/healthz`, `/readyz`
   * and `/metrics` beside it; over HTTPS with `tls`; with `metricsPort`, metrics are served on that
   * port only. `api: false` serves the probes and metrics alone (an instance that only delivers the outbox).
   * `routes` are served beside the API, outside its authentication (the development server's demo catalog).
   * Without a `host` it listens on every interface, but in development mode (no authentication) on
   * 127.0.0.1 only, and logs where; a host given is used, in development mode with a warning when it
   * is reachable from the network.
   */
  listen(port: number, host?: string, options?: { tls?: TlsOptions; metricsPort?: number; api?: boolean; routes?: RequestHandler }): Promise<Server>;
  /**
   * Readiness turns 503, the server (if `listen` started one) stops accepting and drains the requests
   * in flight, operations still running (also in a host's app, also those whose clients left) finish,
   * the outbox finishes its current deliveries, plugins close in reverse order, then the storage.
   * Mounted in a host's app, stop the host's server first: requests it still lets in keep this wait
   * going until `drainTimeoutMs`.
   */
  close(): Promise<void>;
}

const DEFAULT_BASE_PATH = '/zaken/api';
const majorOf = (version: string) => Number(version.split('.')[0]);

/** The base URL with its `/v{major}` segment for this version; without one, only a single version can be served. */
function versionedBaseUrl(baseUrl: string, version: string, count: number): string {
  if (/\/v\d+$/.test(baseUrl)) return baseUrl.replace(/\/v\d+$/, `/v${majorOf(version)}`);
  if (count > 1) throw new Error(`baseUrl ${baseUrl} must end in /v{major} to serve several versions`);
  return baseUrl;
}

function basePathOf(baseUrl: string | undefined, version: string, count: number): string {
  return baseUrl ? new URL(versionedBaseUrl(baseUrl.replace(/\/+$/, ''), version, count)).pathname : `${DEFAULT_BASE_PATH}/v${majorOf(version)}`;
}

/** The plugins of a registry: the preset's (unless replaced by name), the given ones, and authentication. */
function choosePlugins(options: RegistryOptions, log: Logger): Plugin[] {
  const chosen = (options.plugins ?? []).flat();
  const names = new Set(chosen.map((p) => p.name));
  const plugins = [...presetPlugins(options.preset ?? 'standard').filter((p) => !names.has(p.name)), ...chosen];
  if (options.authorization === 'development') {
    log.warn(DEVELOPMENT_WARNING);
    plugins.push(developmentMode());
  } else if (options.authorization) {
    const { clients, allowWeakSecrets } = options.authorization;
    const weak = allowWeakSecrets && typeof clients === 'object' ? secretProblems(clients, '').map((problem) => problem.path.slice(1)) : [];
    if (weak.length) log.warn(`allowWeakSecrets: the secrets of ${weak.join(', ')} are shorter than ${MIN_SECRET_BYTES} bytes (a test environment only)`);
    plugins.unshift(...authenticationPlugins(options.authorization));
  }
  return plugins;
}

/** The options checked, the logger, the plugins and their host: what is settled before the storage is used. */
function prepare(options: RegistryOptions) {
  checkRegistryOptions(options);
  const log = withRequestIds(options.logger ?? pinoLogger(jsonLogger()));
  const plugins = choosePlugins(options, log);
  return { log, plugins, host: new PluginHost(plugins, log) };
}

/**
 * Assembles a registry from its options and plugins. When it fails, the storage it was given is
 * closed (a promise of one once it has opened) before it rejects.
 */
export async function createRegistry(options: RegistryOptions = {}): Promise<Registry> {
  const handedOver = handOver(options.storage);
  let prepared: ReturnType<typeof prepare>;
  try {
    prepared = prepare(options);
  } catch (error) {
    await handedOver.release();
    throw error;
  }
  const { log, plugins, host } = prepared;
  const baseUrl = options.baseUrl?.replace(/\/+$/, '');
  const storage = await handedOver.open();
  const untraceQueries = traceQueries(storage.knex);
  const metrics = registryMetrics({ knex: storage.knex, outbox: () => outbox.outbox, replicas: storage.replicas });
  storage.replicas?.useLog(log);
  // Every remote client of the registry and its plugins reports to the metrics.
  const meteredClient = (clientOptions: RemoteOptions) =>
    remoteClient({
      ...clientOptions,
      onExchange: (exchange) => {
        metrics.observeRemote(exchange);
        clientOptions.onExchange?.(exchange);
      },
    });
  const remote = meteredClient({ allowedHosts: [], ...options.remote });
  const announce = (change: ResourceChange) => host.domain('resourceChanged', change);
  const records = zaakRecordResources(announce);
  const assembly: Assembly = {
    operations: [...zaakOperations(announce, removalAnnouncer(host, records), (zaken, scope) => host.representZaken(zaken, scope)), ...zaaknummerOperations(), ...records.operations, ...audittrailOperations()],
    migrations: [...coreMigrations],
    fragments: [zaakOpenApi, zaaknummerOpenApi, ...records.fragments, audittrailOpenApi],
    deliveryHandlers: new Map(),
    // Replicas never make the registry unready (reads fall back to the primary): they are a detail.
    readinessDetails: new Map(storage.replicas ? [['replicas', () => replicaDetail(storage.replicas!)]] : []),
    versions: [{ version: options.info?.version ?? ZAKEN_API_VERSION }],
    assembling: true,
    counter: (counterOptions) => metrics.counter(counterOptions),
  };
  const outbox = createOutbox(storage.knex, assembly.deliveryHandlers, log, options.outbox);
  const services: RegistryServices = {
    get apiVersion() {
      return assembly.versions[assembly.versions.length - 1].version;
    },
    storage,
    catalog: options.catalog ?? httpCatalog({ remote, onLookup: metrics.observeCache }),
    remote,
    remoteClient: meteredClient,
    log,
    baseUrl,
    zaken: zaakService(storage, host, records, () => services),
    outbox: outbox.outbox,
    strictNulls: options.strictNulls ?? false,
    operations: operationRunner(() => assembly.operations, host, () => services),
    migration: migrationService(() => services, announce),
  };

  try {
    await runSetups(plugins, assembly, services);
    checkHookOperations(plugins, new Set([...OPERATION_IDS, ...assembly.operations.map((operation) => operation.id)]));
  } catch (error) {
    untraceQueries();
    await storage.close();
    throw error;
  }
  assembly.assembling = false;
  const { operations, migrations, fragments, versions } = assembly;

  const documents = new Map<string, Record<string, unknown>>();
  const openapi = (version = services.apiVersion) => {
    let document = documents.get(version);
    if (!document) {
      const served = versions.find((v) => v.version === version);
      if (!served) throw new Error(`this registry does not serve version ${version}`);
      document = buildOpenApi({ ...options.info, version }, operations, fragments);
      document.servers = [{ url: basePathOf(options.baseUrl, served.version, versions.length) }];
      served.document?.(document);
      documents.set(version, document);
    }
    return document;
  };
  operations.push(...openApiOperations(openapi), apiRootOperation(operations));
  const running = new RunningOperations();
  const served: ServedApiVersion[] = versions.map(({ version, headers }) => {
    const base = baseUrl && versionedBaseUrl(baseUrl, version, versions.length);
    const docs = docsRouter(() => openapi(version), problemCatalogue);
    const router = buildRouter(operations, host, services, { version, baseUrl: base, headers }, running, docs, metrics.observeRequests);
    return { version, basePath: basePathOf(options.baseUrl, version, versions.length), router, docs };
  });
  const mount = (app: Pick<Router, 'use'>) => {
    for (const version of served) app.use(version.basePath, version.router);
  };

  // Deliveries start once the outbox table exists.
  const migrate = async () => {
    const applied = await storage.migrate(loggingProgress(migrations, log), {
      onWait: () => log.info('waiting for the migrations another process is applying'),
    });
    if (!closed) outbox.start();
    if (!closed) countFolding ??= startCountFolding(storage.knex, log);
    return applied;
  };
  let closed = false;
  let countFolding: { stop(): Promise<void> } | undefined;
  if (options.migrate !== false) await migrate();
  const ready = readinessHandler(readinessCheck({ storage, migrationNames: () => migrations.map((m) => m.name), shuttingDown: () => closed, details: assembly.readinessDetails }));

  const servers: DrainableServer[] = [];
  return {
    router: served[served.length - 1].router,
    versions: served,
    mount,
    services,
    outbox: outbox.outbox,
    plugins,
    openapi,
    migrate,
    health: healthHandler,
    ready,
    metrics: metrics.handler,
    docs: served[served.length - 1].docs,
    async listen(port, hostname, listenOptions = {}) {
      const development = options.authorization === 'development';
      const bindTo = listenHost(hostname, development);
      const app = express();
      app.disable('x-powered-by');
      app.set('etag', false);
      // Outside the API's base path and its authentication: for load balancers and orchestrators.
      app.get('/healthz', healthHandler);
      app.get('/readyz', ready);
      if (listenOptions.metricsPort === undefined) app.get('/metrics', metrics.handler);
      else {
        const metricsOnly = drainableServer(express().get('/metrics', metrics.handler));
        await startListening(metricsOnly.server, listenOptions.metricsPort, bindTo);
        servers.push(metricsOnly);
      }
      const origin = (req: express.Request) => (baseUrl ? new URL(baseUrl).origin : `${req.protocol}://${req.get('host')}`);
      const newest = served[served.length - 1];
      if (listenOptions.api !== false) {
        // Every request but the probes above gets its id and access-log line, also those outside the API,
        // whose problems point at the newest version's error catalogue.
        app.use(chain([requestScope, accessLog(log), errorCatalogueAt((req) => `${origin(req)}${newest.basePath}`)]));
        mount(app);
        if (listenOptions.routes) app.use(listenOptions.routes);
        // Outside the API: a JSON index at `/`, problem+json for anything else (no HTML error pages).
        app.get('/', (req, res) => {
          const at = origin(req);
          res.json({
            name: 'zaakregister',
            apis: served.map((v) => ({ version: v.version, href: `${at}${v.basePath}`, openapi: `${at}${v.basePath}/openapi.json`, docs: `${at}${v.basePath}/docs/` })),
          });
        });
      }
      app.use(notFound, errorHandler(log));
      const api = drainableServer(app, listenOptions.tls ? createTlsServer(listenOptions.tls) : undefined);
      await startListening(api.server, port, bindTo);
      servers.push(api);
      if (development) logDevelopmentListening(log, api.server.address() as AddressInfo, listenOptions.tls ? 'https' : 'http');
      return api.server;
    },
    async close() {
      if (closed) return;
      closed = true;
      const deadline = Date.now() + (options.drainTimeoutMs ?? 10_000);
      await Promise.all(servers.map((server) => server.drain(deadline - Date.now(), options.drainGraceMs ?? 0)));
      // Also in a host's app, and for requests whose clients left: their writes finish before the database closes.
      if (!(await running.settled(deadline))) log.warn('operations still running when the drain timeout passed; closing the database under them');
      await outbox.stop();
      await countFolding?.stop();
      for (const plugin of [...plugins].reverse()) {
        try {
          await plugin.close?.();
        } catch (error) {
          log.error(`plugin "${plugin.name}" failed to close`, { error: String(error) });
        }
      }
      if (typeof options.authorization === 'object') await options.authorization.source.close?.();
      untraceQueries();
      await storage.close();
    },
  };
}
