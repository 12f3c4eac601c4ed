import type { Server } from 'node:http';
import express, { type Router } from 'express';
import { authenticationPlugins, type AuthOptions } from './auth/index.js';
import { httpCatalog } from './catalog/http-catalog.js';
import type { CatalogClient } from './catalog/types.js';
import { DEVELOPMENT_WARNING, developmentMode } from './development.js';
import { buildRouter } from './http/router.js';
import { consoleLogger, type Logger } from './log.js';
import { buildOpenApi, type OpenApiFragment, type OpenApiInfo } from './openapi/build.js';
import { openApiOperations } from './openapi/serve.js';
import type { Operation } from './operation.js';
import { PluginHost } from './plugin-host.js';
import type { Plugin, RegistryServices, ResourceChange, SetupApi } from './plugin.js';
import { defineProblem } from './problem.js';
import { audittrailOpenApi, audittrailOperations } from './resources/audittrail/resource.js';
import { zaakRecordResources } from './resources/records/index.js';
import { removalAnnouncer, zaakService } from './resources/zaak/service.js';
import { presetPlugins, type PresetName } from './presets.js';
import { zaakOpenApi, zaakOperations } from './resources/zaak/resource.js';
import { remoteClient, type RemoteOptions } from './remote/fetch.js';
import { createOutbox, type DeliveryHandler, type DispatcherOptions, type Outbox } from './outbox/index.js';
import { coreMigrations } from './storage/migrations/index.js';
import { openStorage } from './storage/index.js';
import type { Migration, Storage } from './storage/types.js';

/** The Zaken API version this registry implements; `info.version` and the `API-Version` header. */
export const ZAKEN_API_VERSION = '1.5.1';

export interface RegistryOptions {
  /**
   * Public base URL, e.g. `https://zaken.example.nl/zaken/api/v1`: resource URLs are built on it.
   * Without it, each request derives it from its Host header and mount path.
   */
  baseUrl?: string;
  /** A storage (`pgliteStorage`, `postgresStorage`) or a database string (`memory`, a directory, `postgres://…`). Default `memory`. */
  storage?: Storage | string;
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
   * The built-in plugins to start from: `standard` (default) adds the ZGW business rules (`zrcRules`, `archive`);
   * `none` gives the bare core. A plugin in `plugins` with the same name replaces the preset's.
   */
  preset?: PresetName;
  plugins?: (Plugin | Plugin[])[];
  logger?: Logger;
  /** Apply pending migrations while assembling (default true); otherwise call `migrate()` yourself. */
  migrate?: boolean;
  /** `info` of the OpenAPI document; `version` defaults to the implemented Zaken API version. */
  info?: Partial<OpenApiInfo>;
  /** The outbox dispatcher: retries, timeouts, concurrency; `dispatch: false` leaves delivering to other instances. */
  outbox?: DispatcherOptions;
}

export interface Registry {
  /** Mount it: `app.use('/zaken/api/v1', registry.router)`. */
  readonly router: Router;
  readonly services: RegistryServices;
  readonly plugins: readonly Plugin[];
  /** Deliveries to other registries: list, retry, counts (also `services.outbox`). */
  readonly outbox: Outbox;
  /** The OpenAPI document as served (with a relative server URL). */
  openapi(): Record<string, unknown>;
  /** Applies the core's and the plugins' pending migrations; returns their names. */
  migrate(): Promise<string[]>;
  /** Serves the registry on its own Express app at the base URL's path. */
  listen(port: number, host?: string): Promise<Server>;
  /** Stops the server (if `listen` started one), closes plugins in reverse order, then the storage. */
  close(): Promise<void>;
}

const DEFAULT_BASE_PATH = '/zaken/api/v1';

/** Assembles a registry from its options and plugins. */
export async function createRegistry(options: RegistryOptions = {}): Promise<Registry> {
  const log = options.logger ?? consoleLogger();
  const chosen = (options.plugins ?? []).flat();
  const names = new Set(chosen.map((p) => p.name));
  const plugins = [...presetPlugins(options.preset ?? 'standard').filter((p) => !names.has(p.name)), ...chosen];
  if (options.authorization === 'development') {
    log.warn(DEVELOPMENT_WARNING);
    plugins.push(developmentMode());
  } else if (options.authorization) {
    plugins.unshift(...authenticationPlugins(options.authorization));
  }
  const host = new PluginHost(plugins, log);
  const baseUrl = options.baseUrl?.replace(/\/+$/, '');
  const remote = remoteClient({ allowedHosts: [], ...options.remote });
  const storage = typeof options.storage === 'object' ? options.storage : await openStorage(options.storage ?? 'memory');
  const announce = (change: ResourceChange) => host.domain('resourceChanged', change);
  const records = zaakRecordResources(announce);
  const deliveryHandlers = new Map<string, DeliveryHandler>();
  const outbox = createOutbox(storage.knex, deliveryHandlers, log, options.outbox);
  const services: RegistryServices = {
    apiVersion: options.info?.version ?? ZAKEN_API_VERSION,
    storage,
    catalog: options.catalog ?? httpCatalog({ remote }),
    remote,
    log,
    baseUrl,
    zaken: zaakService(storage, host, records, () => services),
    outbox: outbox.outbox,
  };

  const operations: Operation[] = [...zaakOperations(announce, removalAnnouncer(host, records)), ...records.operations, ...audittrailOperations()];
  const migrations: Migration[] = [...coreMigrations];
  const fragments: OpenApiFragment[] = [zaakOpenApi, ...records.fragments, audittrailOpenApi];
  let assembling = true;
  const whileAssembling = <A extends unknown[]>(what: string, fn: (...args: A) => void) => (...args: A) => {
    if (!assembling) throw new Error(`${what} is only possible during setup, before the registry starts`);
    fn(...args);
  };
  for (const plugin of plugins) {
    if (!plugin.setup) continue;
    const api: SetupApi = {
      registry: services,
      addOperation: whileAssembling('addOperation', (operation) => void operations.push(operation)),
      addQueryParameter: whileAssembling('addQueryParameter', (operationId, parameter) => {
        const operation = operations.find((o) => o.id === operationId);
        if (!operation) throw new Error(`plugin "${plugin.name}": no operation "${operationId}"`);
        operation.queryParameters = [...(operation.queryParameters ?? []), parameter];
      }),
      addMigrations: whileAssembling('addMigrations', (list) => void migrations.push(...list)),
      addOpenApi: whileAssembling('addOpenApi', (fragment) => void fragments.push(fragment)),
      defineProblem: whileAssembling('defineProblem', (code, status, title) => defineProblem(code, status, title, plugin.name)),
      addDeliveryHandler: whileAssembling('addDeliveryHandler', (kind, handler) => {
        if (deliveryHandlers.has(kind)) throw new Error(`plugin "${plugin.name}": deliveries of kind "${kind}" already have a handler`);
        deliveryHandlers.set(kind, handler);
      }),
      operations: () => operations,
    };
    try {
      await plugin.setup(api);
    } catch (error) {
      await storage.close();
      throw new Error(`plugin "${plugin.name}" failed in setup: ${(error as Error).message}`, { cause: error });
    }
  }
  assembling = false;

  const info: OpenApiInfo = { ...options.info, version: services.apiVersion };
  let document: Record<string, unknown> | undefined;
  const openapi = () => (document ??= buildOpenApi(info, operations, fragments));
  operations.push(...openApiOperations(openapi));
  const router = buildRouter(operations, host, services);

  // Deliveries start once the outbox table exists.
  const migrate = async () => {
    const applied = await storage.migrate(migrations);
    if (!closed) outbox.start();
    return applied;
  };
  let closed = false;
  if (options.migrate !== false) await migrate();

  let server: Server | undefined;
  return {
    router,
    services,
    outbox: outbox.outbox,
    plugins,
    openapi,
    migrate,
    async listen(port, hostname) {
      const app = express();
      app.disable('x-powered-by');
      app.set('etag', false);
      app.use(baseUrl ? new URL(baseUrl).pathname : DEFAULT_BASE_PATH, router);
      server = await new Promise<Server>((resolve, reject) => {
        const s = app.listen(port, hostname ?? '0.0.0.0', (error?: Error) => (error ? reject(error) : resolve(s)));
      });
      return server;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (server) {
        const s = server;
        await new Promise<void>((resolve) => s.close(() => resolve()));
        s.closeAllConnections();
      }
      await outbox.stop();
      for (const plugin of [...plugins].reverse()) {
        try {
          await plugin.close?.();
        } catch (error) {
          log.error(`plugin "${plugin.name}" failed to close`, { error: String(error) });
        }
      }
      if (typeof options.authorization === 'object') await options.authorization.source.close?.();
      await storage.close();
    },
  };
}
