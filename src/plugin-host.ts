import { HOOK_KIND, REQUEST_HOOKS, ZAAK_HOOKS, type RequestHookName, type ZaakHookName } from './lifecycle.js';
import type { Plugin, Principal, RequestContext, ResourceChange, ResponseState, ZaakScope, ZaakTransition } from './plugin.js';
import { ProblemError } from './problem.js';
import type { Logger } from './log.js';
import { closestOperation } from './suggest.js';

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

/** Checks names are unique and not `core`, every declared dependency is registered and every plugin fits the plugin API. */
export function checkPlugins(plugins: readonly Plugin[]): void {
  const names = new Set<string>();
  for (const plugin of plugins) {
    if (!plugin || typeof plugin.name !== 'string' || !plugin.name) {
      throw new TypeError('every plugin needs a non-empty "name"');
    }
    // The core's own migrations, problems and errors go by `core`: a plugin of that name would be taken for it.
    if (plugin.name === 'core') throw new Error('plugin name "core" is reserved for the registry\'s core: give the plugin another name');
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
 * Refuses a hook limited to an operation the registry does not serve (`zaak_read` for `zaak_retrieve`):
 * it would silently never run. Checked once every plugin's `setup` added its operations.
 */
export function checkHookOperations(plugins: readonly Plugin[], operationIds: ReadonlySet<string>): void {
  for (const plugin of plugins) {
    for (const name of [...REQUEST_HOOKS, ...ZAAK_HOOKS]) {
      const hook = plugin[name];
      if (!hook || typeof hook === 'function' || hook.operations === undefined) continue;
      if (!(REQUEST_HOOKS as readonly string[]).includes(name)) {
        throw new Error(`plugin "${plugin.name}": ${name} runs outside requests, so it cannot be limited to operations`);
      }
      for (const id of hook.operations) {
        if (operationIds.has(id)) continue;
        const suggestion = closestOperation(id, operationIds);
        throw new Error(`plugin "${plugin.name}": ${name} is limited to operation "${id}", which this registry does not serve${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`);
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

  /**
   * Runs a sequential or parallel hook with the request context. A promise only when some handler
   * returned one: most requests pass hooks with no handler or a synchronous one, and every promise
   * costs (more so while AsyncLocalStorage tracks them, as on Node 20).
   */
  run(hook: Exclude<RequestHookName, 'authenticate' | 'preHandler' | 'serialize'>, ctx: RequestContext): Promise<void> | undefined {
    const bound = this.hooks[hook];
    if (bound.length === 0) return undefined;
    if (HOOK_KIND[hook] === 'parallel') return this.parallel(hook, bound, ctx);
    return this.sequence(bound, 0, hook, [ctx], () => false) as Promise<void> | undefined;
  }

  private async parallel(hook: RequestHookName, bound: BoundHook[], ctx: RequestContext): Promise<void> {
    const outcomes = await Promise.allSettled(bound.map(async (b) => this.call(b, hook, [ctx])));
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') this.log.error(String(outcome.reason?.message ?? outcome.reason), { hook });
    }
  }

  /** Runs a domain hook (`zaakClosing`, `zaakReopening`, `resourceChanged`), one after the other. */
  async domain<H extends Exclude<ZaakHookName, 'representZaken'>>(hook: H, event: H extends 'resourceChanged' ? ResourceChange : ZaakTransition): Promise<void> {
    await this.sequence(this.hooks[hook], 0, hook, [event], () => false);
  }

  /**
   * Lets the `representZaken` hooks shape the zaken of one answer or read, one hook after the other.
   * A promise only when some handler returned one; nothing to run when no plugin shapes zaken.
   */
  representZaken(zaken: Record<string, unknown>[], scope: ZaakScope): Promise<unknown> | undefined {
    const bound = this.hooks.representZaken;
    if (bound.length === 0 || zaken.length === 0) return undefined;
    const done = this.sequence(bound, 0, 'representZaken', [zaken, scope], () => false);
    return isPromise(done) ? done : undefined;
  }

  /** The first `authenticate` hook that returns a principal wins. */
  authenticate(ctx: RequestContext): Promise<Principal | undefined> | Principal | undefined {
    return this.sequence(this.hooks.authenticate, 0, 'authenticate', [ctx], Boolean) as Promise<Principal | undefined> | Principal | undefined;
  }

  /** The first `preHandler` hook that returns a response answers the request. */
  preHandler(ctx: RequestContext): Promise<ResponseState | undefined> | ResponseState | undefined {
    return this.sequence(this.hooks.preHandler, 0, 'preHandler', [ctx], Boolean) as Promise<ResponseState | undefined> | ResponseState | undefined;
  }

  /**
   * The handlers from `from` on, one after the other, until one's result is `final` (answered then);
   * synchronous for as long as the handlers are.
   */
  private sequence(bound: BoundHook[], from: number, hook: string, args: unknown[], final: (result: unknown) => boolean): unknown {
    for (let i = from; i < bound.length; i++) {
      const result = this.call(bound[i], hook, args);
      if (isPromise(result)) return result.then((value) => (final(value) ? value : this.sequence(bound, i + 1, hook, args, final)));
      if (final(result)) return result;
    }
    return undefined;
  }

  /** Each `serialize` hook may replace the body the previous one produced. */
  serialize(body: unknown, ctx: RequestContext): unknown {
    return this.serializeFrom(body, ctx, 0);
  }

  private serializeFrom(body: unknown, ctx: RequestContext, from: number): unknown {
    let current = body;
    const bound = this.hooks.serialize;
    for (let i = from; i < bound.length; i++) {
      const next = this.call(bound[i], 'serialize', [current, ctx]);
      if (isPromise(next)) return next.then((value) => this.serializeFrom(value === undefined ? current : value, ctx, i + 1));
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
        const handler = hook.operations ? forOperations(name, hook.operations, hook.handler as AnyHandler) : (hook.handler as AnyHandler);
        byOrder[hook.order ?? 'normal'].push({ plugin: plugin.name, handler });
      }
    }
    return [...byOrder.pre, ...byOrder.normal, ...byOrder.post];
  }

  /** One handler: its errors name the plugin and hook (problems keep their status). */
  private call(bound: BoundHook, hook: string, args: unknown[]): unknown {
    let result: unknown;
    try {
      result = bound.handler(...args);
    } catch (error) {
      throw attribute(bound, hook, error);
    }
    // Native promises out, also for a handler's other thenables: callers test with `instanceof Promise`.
    return isPromise(result)
      ? Promise.resolve(result).then(undefined, (error: unknown) => {
          throw attribute(bound, hook, error);
        })
      : result;
  }
}

/** A request hook run only for requests of these operations; for others it does nothing (and returns nothing). */
function forOperations(name: RequestHookName | ZaakHookName, operations: readonly string[], handler: AnyHandler): AnyHandler {
  const only = new Set(operations);
  const contextAt = name === 'serialize' ? 1 : 0;
  return (...args) => (only.has((args[contextAt] as RequestContext).operation.id) ? handler(...args) : undefined);
}

function attribute(bound: BoundHook, hook: string, error: unknown): Error {
  if (error instanceof ProblemError) {
    error.plugin ??= bound.plugin;
    error.hook ??= hook;
    return error;
  }
  return new PluginError(bound.plugin, hook, error);
}

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';
