import type { Plugin, RequestContext } from '../../src/index.js';

/**
 * A plugin that holds the next request of one client in one hook until the test lets it go: the
 * window in which another client changes the zaak. `hold()` arms it for one request.
 */
export function requestGate(hook: 'authorize' | 'validate', clientId: string): Plugin & { hold(): { reached: Promise<void>; release(): void } } {
  let held: { reached: () => void; released: Promise<void> } | undefined;
  return {
    name: `test-gate-${hook}`,
    async [hook](ctx: RequestContext) {
      if (ctx.principal?.clientId !== clientId || !held) return;
      const { reached, released } = held;
      held = undefined;
      reached();
      await released;
    },
    hold() {
      let reached!: () => void;
      let release!: () => void;
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      held = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: reachedPromise, release };
    },
  };
}
