// Assembling a registry: what the plugins' `setup` calls add (operations, migrations, OpenAPI fragments,
// delivery handlers, API versions), checked as they are added and closed once the registry starts.
import type { OpenApiFragment, OpenApiTransform } from './openapi/build.js';
import type { Operation } from './operation.js';
import { PluginError } from './plugin-host.js';
import type { ApiVersion, CounterOptions, MetricCounter, Plugin, RegistryServices, SetupApi } from './plugin.js';
import { defineProblem } from './problem.js';
import type { DeliveryHandler } from './outbox/index.js';
import type { Migration } from './storage/types.js';

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;
const majorOf = (version: string) => Number(version.split('.')[0]);

/** Semver versions with different majors, oldest first. */
function checkedVersions(list: ApiVersion[]): ApiVersion[] {
  if (!list.length) throw new Error('setApiVersions: at least one version');
  for (const { version } of list) if (!SEMVER.test(version)) throw new Error(`setApiVersions: "${version}" is no semantic version (major.minor.patch)`);
  const majors = list.map((v) => majorOf(v.version));
  if (new Set(majors).size !== majors.length) throw new Error('setApiVersions: every version needs its own major (it names the base path)');
  return [...list].sort((a, b) => majorOf(a.version) - majorOf(b.version));
}

/** What the plugins' `setup` calls add to, while the registry is assembled. */
export interface Assembly {
  readonly operations: Operation[];
  readonly migrations: Migration[];
  readonly fragments: (OpenApiFragment | OpenApiTransform)[];
  readonly deliveryHandlers: Map<string, DeliveryHandler>;
  /** Per plugin: a line for `/readyz` when something is degraded. */
  readonly readinessDetails: Map<string, () => string | undefined>;
  versions: ApiVersion[];
  /** The plugin that set the versions, when one did. */
  versionsSetBy?: string;
  assembling: boolean;
  /** Defines a counter in the registry's metrics. */
  readonly counter: (options: CounterOptions) => MetricCounter;
}

/** The `SetupApi` one plugin's `setup` receives: each call adds to the assembly, and throws once it is over. */
function setupApiFor(plugin: Plugin, assembly: Assembly, services: RegistryServices): SetupApi {
  const { operations, fragments, deliveryHandlers } = assembly;
  const whileAssembling = <A extends unknown[]>(what: string, fn: (...args: A) => void) => (...args: A) => {
    if (!assembly.assembling) throw new Error(`${what} is only possible during setup, before the registry starts`);
    fn(...args);
  };
  return {
    registry: services,
    addOperation: whileAssembling('addOperation', (operation) => void operations.push(operation)),
    addQueryParameter: whileAssembling('addQueryParameter', (operationId, parameter) => {
      const operation = operations.find((o) => o.id === operationId);
      if (!operation) throw new Error(`plugin "${plugin.name}": no operation "${operationId}"`);
      operation.queryParameters = [...(operation.queryParameters ?? []), parameter];
    }),
    addMigrations: whileAssembling('addMigrations', (list) => {
      // Applied migrations are known by name only: one named like another's would silently be skipped.
      for (const migration of list) {
        if (!migration.name?.startsWith(`${plugin.name}/`)) {
          throw new Error(`migration "${migration.name}" must be named "${plugin.name}/…": a plugin's migrations are named under the plugin's name, apart from the core's and other plugins'`);
        }
        if (assembly.migrations.some((other) => other.name === migration.name)) throw new Error(`migration "${migration.name}" is registered twice`);
        assembly.migrations.push(migration);
      }
    }),
    addOpenApi: whileAssembling('addOpenApi', (fragment) => void fragments.push(fragment)),
    defineProblem: whileAssembling('defineProblem', (code, status, title) => defineProblem(code, status, title, plugin.name)),
    addReadinessDetail: whileAssembling('addReadinessDetail', (detail) => void assembly.readinessDetails.set(plugin.name, detail)),
    addDeliveryHandler: whileAssembling('addDeliveryHandler', (kind, handler) => {
      if (deliveryHandlers.has(kind)) throw new Error(`plugin "${plugin.name}": deliveries of kind "${kind}" already have a handler`);
      deliveryHandlers.set(kind, handler);
    }),
    setApiVersions: whileAssembling('setApiVersions', (list) => {
      // One owner of the version policy: a second plugin setting versions would silently win.
      if (assembly.versionsSetBy) throw new Error(`plugin "${plugin.name}": the API versions were already set by plugin "${assembly.versionsSetBy}"`);
      assembly.versions = checkedVersions(list);
      assembly.versionsSetBy = plugin.name;
    }),
    addBodyProperty: whileAssembling('addBodyProperty', (operationId, name, schema) => {
      const operation = operations.find((o) => o.id === operationId);
      if (!operation?.requestBody) throw new Error(`plugin "${plugin.name}": no operation "${operationId}" with a request body`);
      const body = operation.requestBody;
      operation.requestBody = { ...body, properties: { ...(body.properties as object), [name]: schema } };
      // A body documented by reference: the referenced schema gets the property too.
      const documented = (operation.openapi.requestSchema?.$ref as string | undefined)?.match(/^#\/components\/schemas\/(\w+)$/)?.[1];
      if (documented) fragments.push({ components: { schemas: { [documented]: { properties: { [name]: schema } } } } });
    }),
    operations: () => operations,
    addCounter(options) {
      if (!assembly.assembling) throw new Error('addCounter is only possible during setup, before the registry starts');
      return assembly.counter(options);
    },
  };
}

/** Runs each plugin's `setup` in registration order; a failure names the plugin. */
export async function runSetups(plugins: readonly Plugin[], assembly: Assembly, services: RegistryServices): Promise<void> {
  for (const plugin of plugins) {
    if (!plugin.setup) continue;
    try {
      await plugin.setup(setupApiFor(plugin, assembly, services));
    } catch (error) {
      throw new PluginError(plugin.name, 'setup', error);
    }
  }
}

