import { HOOK_KIND, REQUEST_HOOKS, ZAAK_HOOKS, type RequestHookName, type ZaakHookName } from './lifecycle.js';
import type { Plugin, Principal, RequestContext, ResourceChange, ResponseState, ZaakTransition } from './plugin.js';
import { ProblemError } from './problem.js';
import type { Logger } from './log.js';

type AnyHandler = (...args: unknown[]) => unknown;
interface BoundHook {
  plugin: string;
  handler: AnyHandler;
}

/**
 * The version of the plugin API this host provides (`major.minor`). A plugin declaring `apiVersion`
 * loads on a host of the same major and at least its minor: minors add to the API, majors break it.
 */
export const PLUGIN_API_VERSION = '1.0';

/**
 * A non-problem error thrown by a plugin's hook (or `setup`), naming the plugin and the hook it came
 * from; in a request it is answered as 500 with both in the log line.
 */
export class PluginError extends Error {
  constructor(
    readonly plugin: string,
    readonly hook: string,
    cause: unknown,
  ) {
    super(`plugin "${plugin}" failed in ${hook}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'PluginError';
  }
}

const MAJOR_MINOR = /^(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/** Refuses a plugin written against a plugin API this host does not provide. */
function checkApiVersion(plugin: Plugin): void {
  if (plugin.apiVersion === undefined) return;
  const wanted = MAJOR_MINOR.exec(plugin.apiVersion);
  if (!wanted) throw new TypeError(`plugin "${plugin.name}" declares apiVersion "${plugin.apiVersion}": expected major.minor, such as "${PLUGIN_API_VERSION}"`);
  const [major, minor] = PLUGIN_API_VERSION.split('.').map(Number);
  const [wantedMajor, wantedMinor] = [Number(wanted[1]), Number(wanted[2])];
  if (wantedMajor !== major || wantedMinor > minor) {
    const advice = wantedMajor < major ? 'use a version of the plugin written for this one' : 'upgrade zaakregister';
    throw new Error(`plugin "${plugin.name}" needs zaakregister plugin API ${plugin.apiVersion}, but this zaakregister provides ${PLUGIN_API_VERSION}: ${advice}`);
  }
}

/** Checks names are unique, every declared dependency is registered and every plugin fits the plugin API. */
export function checkPlugins(plugins: readonly Plugin[]): void {
  const names = new Set<string>();
  for (const plugin of plugins) {
    if (!plugin || typeof plugin.name !== 'string' || !plugin.name) {
      throw new TypeError('every plugin needs a non-empty "name"');
    }
    checkApiVersion(plugin);
    if (names.has(plugin.name)) throw new Error(`plugin "${plugin.name}" is registered twice`);
    names.add(plugin.name);
  }
  for (const plugin of plugins) {
    for (const dependency of plugin.dependencies ?? []) {
      if (!names.has(dependency)) {
        throw new Error(`plugin "${plugin.name}" needs plugin "${dependency}": add it to "plugins"`);
      }
    }
  }
}

/**
 * Runs the hooks of the registered plugins: in registration order, `pre` hooks first and `post` hooks
 * last, with the kind (sequential, first, parallel) the lifecycle list gives each hook.
 */
export class PluginHost {
  private readonly hooks: Record<RequestHookName | ZaakHookName, BoundHook[]>;

  constructor(
    readonly plugins: readonly Plugin[],
    private readonly log: Logger,
  ) {
    checkPlugins(plugins);
    this.hooks = Object.fromEntries([...REQUEST_HOOKS, ...ZAAK_HOOKS].map((name) => [name, this.collect(name)])) as Record<
      RequestHookName | ZaakHookName,
      BoundHook[]
    >;
  }

  has(hook: RequestHookName | ZaakHookName): boolean {
    return this.hooks[hook].length > 0;
  }

  /** Runs a sequential or parallel hook with the request context. */
  async run(hook: Exclude<RequestHookName, 'authenticate' | 'preHandler' | 'serialize'>, ctx: RequestContext): Promise<void> {
    const bound = this.hooks[hook];
    if (HOOK_KIND[hook] === 'parallel') {
      const outcomes = await Promise.allSettled(bound.map((b) => this.call(b, hook, [ctx])));
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') this.log.error(String(outcome.reason?.message ?? outcome.reason), { hook });
      }
      return;
    }
    for (const b of bound) await this.call(b, hook, [ctx]);
  }

  /** Runs a domain hook (`zaakClosing`, `zaakReopening`, `resourceChanged`), one after the other. */
  async domain<H extends ZaakHookName>(hook: H, event: H extends 'resourceChanged' ? ResourceChange : ZaakTransition): Promise<void> {
    for (const b of this.hooks[hook]) await this.call(b, hook, [event]);
  }

  /** The first `authenticate` hook that returns a principal wins. */
  authenticate(ctx: RequestContext): Promise<Principal | undefined> {
    return this.first('authenticate', ctx) as Promise<Principal | undefined>;
  }

  /** The first `preHandler` hook that returns a response answers the request. */
  preHandler(ctx: RequestContext): Promise<ResponseState | undefined> {
    return this.first('preHandler', ctx) as Promise<ResponseState | undefined>;
  }

  private async first(hook: 'authenticate' | 'preHandler', ctx: RequestContext): Promise<unknown> {
    for (const b of this.hooks[hook]) {
      const result = await this.call(b, hook, [ctx]);
      if (result) return result;
    }
    return undefined;
  }

  /** Each `serialize` hook may replace the body the previous one produced. */
  async serialize(body: unknown, ctx: RequestContext): Promise<unknown> {
    let current = body;
    for (const b of this.hooks.serialize) {
      const next = await this.call(b, 'serialize', [current, ctx]);
      if (next !== undefined) current = next;
    }
    return current;
  }

  private collect(name: RequestHookName | ZaakHookName): BoundHook[] {
    const byOrder: Record<'pre' | 'normal' | 'post', BoundHook[]> = { pre: [], normal: [], post: [] };
    for (const plugin of this.plugins) {
      const hook = plugin[name] as Plugin[typeof name];
      if (!hook) continue;
      if (typeof hook === 'function') {
        byOrder.normal.push({ plugin: plugin.name, handler: hook as AnyHandler });
      } else {
        byOrder[hook.order ?? 'normal'].push({ plugin: plugin.name, handler: hook.handler as AnyHandler });
      }
    }
    return [...byOrder.pre, ...byOrder.normal, ...byOrder.post];
  }

  private async call(bound: BoundHook, hook: string, args: unknown[]): Promise<unknown> {
    try {
      return await bound.handler(...args);
    } catch (error) {
      if (error instanceof ProblemError) {
        error.plugin ??= bound.plugin;
        error.hook ??= hook;
        throw error;
      }
      throw new PluginError(bound.plugin, hook, error);
    }
  }
}
