/** The plugin object and the set-up API its `setup` receives. */
import type { Migration } from '../storage/types.js';
import type { RequestHooks, ZaakHooks } from './hooks.js';
import type { DeliveryHandler } from './outbox.js';
import type { Operation, QueryParameter, RegistryServices } from './request.js';
import type { ApiVersion, JsonSchema, OpenApiFragment, OpenApiTransform } from './schema.js';

/** What `setup` receives: the ways a plugin extends the registry. Calling them after start throws. */
export interface SetupApi {
  readonly registry: RegistryServices;
  /** Add an endpoint; it runs the same request lifecycle as the built-in ones. */
  addOperation(operation: Operation): void;
  /** Accept an extra query parameter on an operation (it becomes known, validated and documented). */
  addQueryParameter(operationId: string, parameter: QueryParameter): void;
  /**
   * Knex migrations for the plugin's own tables and columns, applied after the core's in registration
   * order. Each name starts with the plugin's name and a slash (`statistiek/001_teller`) and never
   * changes; another name, or one already registered, is refused.
   */
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
  /**
   * A line for `/readyz` under `details.<plugin name>`: what is degraded (a remote service not yet
   * reached, say), or undefined when all is well. Informs operators; readiness stays as the
   * registry's own checks decide, so one degraded dependency does not take every instance out.
   */
  addReadinessDetail(detail: () => string | undefined): void;
  /**
   * A Prometheus counter in the registry's metrics (`GET /metrics`), by convention named
   * `zaakregister_<plugin>_…_total`. Its labels must be bounded (configured names, fixed sets), never ids
   * or URLs. A name the registry has already is refused.
   */
  addCounter(options: CounterOptions): MetricCounter;
}

/** A counter `addCounter` defines. */
export interface CounterOptions {
  name: string;
  help: string;
  labelNames?: string[];
}

/** Counts up: by `value` (default 1), for one combination of its labels. */
export interface MetricCounter {
  inc(labels?: Record<string, string>, value?: number): void;
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
