import { inspect } from 'node:util';

/**
 * JSON text made once for a representation and reused while the representation is unchanged: a page
 * of stored renderings is sent by concatenating their text, without serializing each zaak again.
 *
 * A rendering is shared between requests, so it is frozen; each request gets a copy-on-write view of
 * it (a Proxy): reading costs no copy, and the first change (hooks may add or replace fields, as
 * `expand` does) makes the view's own shallow copy, which is then serialized as usual. Nested values
 * stay frozen: a hook replaces them rather than changing them in place.
 */

export interface Rendering {
  readonly fields: Readonly<Record<string, unknown>>;
  /** Its JSON text as UTF-8, in memory of its own (a pooled slice would keep its whole slab alive). */
  readonly bytes: Buffer;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const nested of Object.values(value)) deepFreeze(nested);
  }
  return value;
}

/** A stored rendering of a representation: frozen, with its JSON text. */
export function renderingOf(representation: Record<string, unknown>): Rendering {
  const json = JSON.stringify(representation);
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
  bytes.write(json);
  return { fields: deepFreeze(representation), bytes };
}

/** What a view reads: its rendering, and its own copy once changed. */
interface View {
  rendering: Rendering;
  copy?: Record<string | symbol, unknown>;
}

/**
 * A view's Proxy target: an empty plain object, so the view's prototype is `Object.prototype` and its
 * only keys are the representation's. It holds the view's state under a symbol (a property read per
 * trap, cheaper than a WeakMap: a page hands out a hundred views), and answers `util.inspect`, which
 * shows a Proxy's target, with the fields. A frozen view's target holds the fields instead.
 */
const STATE = Symbol('view state');
type Target = { [STATE]: View };
const frozenViews = new WeakMap<object, View>();
const state = (target: object) => (target as Partial<Target>)[STATE] ?? frozenViews.get(target)!;
const VIEW = Symbol('rendering view');
const read = (view: View) => (view.copy ?? view.rendering.fields) as Record<string | symbol, unknown>;
const own = (view: View) => (view.copy ??= { ...view.rendering.fields });

/** One handler for every view: reads from the rendering until the first change, then from the copy. */
const VIEW_HANDLER: ProxyHandler<object> = {
  get: (target, key) => (key === VIEW ? state(target) : read(state(target))[key]),
  has: (target, key) => key in read(state(target)),
  ownKeys: (target) => Reflect.ownKeys(read(state(target))),
  getOwnPropertyDescriptor(target, key) {
    const fields = read(state(target));
    const found = Reflect.getOwnPropertyDescriptor(fields, key);
    // Reported configurable and writable (the view is a plain object to whoever holds it), until the
    // target holds the fields itself (see preventExtensions).
    return found && fields !== target ? { value: found.value, enumerable: found.enumerable, writable: true, configurable: true } : found;
  },
  set: (target, key, value) => Reflect.set(own(state(target)), key, value),
  deleteProperty: (target, key) => Reflect.deleteProperty(own(state(target)), key),
  defineProperty: (target, key, descriptor) => Reflect.defineProperty(own(state(target)), key, descriptor),
  // `Object.freeze` and `Object.preventExtensions`: a Proxy is only non-extensible with its target, so
  // the fields move onto the target, which becomes the view's copy (its state moves out of it first).
  preventExtensions(target) {
    const view = state(target);
    frozenViews.set(target, view);
    delete (target as Partial<Target>)[STATE];
    delete (target as Record<symbol, unknown>)[inspect.custom];
    Object.assign(target, read(view));
    view.copy = target as Record<string | symbol, unknown>;
    return Reflect.preventExtensions(target);
  },
};

/** `util.inspect` of a view (called on the view, or on its target). */
function inspectView(this: object) {
  return read((this as Record<symbol, View | undefined>)[VIEW] ?? state(this));
}

/**
 * The representation for one request: a view of the rendering that serializes to its stored text
 * while unchanged. It reads, spreads, changes and freezes as a plain object; `structuredClone` refuses
 * it (as every Proxy): copy it with a spread or `JSON.parse(JSON.stringify(...))`.
 */
export function handOut(rendering: Rendering): Record<string, unknown> {
  const target: Target = { [STATE]: { rendering }, [inspect.custom]: inspectView } as Target;
  return new Proxy(target, VIEW_HANDLER) as Record<string, unknown>;
}

const viewOf = (value: unknown) => (value && typeof value === 'object' ? ((value as Record<symbol, unknown>)[VIEW] as View | undefined) : undefined);

/** A view's JSON text: the stored text while unchanged, its copy serialized once changed; undefined for anything else. */
function viewJson(value: unknown): string | undefined {
  const view = viewOf(value);
  if (!view) return undefined;
  return view.copy ? JSON.stringify(view.copy) : view.rendering.bytes.toString();
}

const COMMA = Buffer.from(',');

/** The body's members as JSON pieces in order; the page's unchanged views as their stored bytes. */
function pagePieces(body: Record<string, unknown>, results: unknown[]): (string | Buffer)[] {
  const pieces: (string | Buffer)[] = [];
  let separator = '{';
  for (const [key, value] of Object.entries(body)) {
    if (key !== 'results') {
      const text = JSON.stringify(value);
      // Left out, as JSON.stringify leaves out undefined, functions and symbols.
      if (text === undefined) continue;
      pieces.push(`${separator}${JSON.stringify(key)}:${text}`);
    } else {
      pieces.push(`${separator}"results":[`);
      results.forEach((item, i) => {
        if (i) pieces.push(COMMA);
        const view = viewOf(item);
        pieces.push(view && !view.copy ? view.rendering.bytes : (JSON.stringify(item) ?? 'null'));
      });
      pieces.push(']');
    }
    separator = ',';
  }
  pieces.push(separator === '{' ? '{}' : '}');
  return pieces;
}

/** The page of views in `body`, if it is one. */
function pageOfViews(body: unknown): unknown[] | undefined {
  const results = (body as { results?: unknown } | null)?.results;
  return Array.isArray(results) && !Array.isArray(body) && results.some(viewOf) ? results : undefined;
}

/**
 * A response body as JSON text: one handed-out representation, or a page (`results`) of them, from
 * their stored text; anything else by `JSON.stringify`. Byte for byte what `JSON.stringify` gives.
 * A string or a `Buffer` is a body already serialized (by a hook): its text as it is.
 */
export function toJson(body: unknown): string {
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString();
  const own = viewJson(body);
  if (own !== undefined) return own;
  const results = pageOfViews(body);
  if (!results) return JSON.stringify(body);
  return pagePieces(body as Record<string, unknown>, results).map(String).join('');
}

/**
 * `toJson` as the bytes sent: an unchanged handed-out representation is its stored bytes (the same
 * `Buffer` every time, while its rendering is current), a page of them their bytes copied once into
 * the payload, without building and encoding its text. A `Buffer` body is sent as it is.
 */
export function toPayload(body: unknown): Buffer {
  const pieces = payloadPieces(body);
  return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
}

/**
 * `toPayload` in the pieces it is made of, uncopied: a page is its envelope's text around each zaak's
 * stored bytes. A response writes them as they are: copying a page into one 200 kB buffer cost 5% of
 * its profile, and once V8's memory reducer had shrunk the heap of an instance idle for half a minute,
 * the registry's CPU per page doubled for as long as the load lasted (1.1 against 2.3 ms at 16
 * connections, 10,000 zaken); written as pieces it stays at 1.1.
 */
export function payloadPieces(body: unknown): Buffer[] {
  if (Buffer.isBuffer(body)) return [body];
  const view = viewOf(body);
  if (view && !view.copy) return [view.rendering.bytes];
  const results = typeof body === 'string' ? undefined : pageOfViews(body);
  if (!results) return [Buffer.from(toJson(body))];
  return pagePieces(body as Record<string, unknown>, results).map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece));
}

/**
 * Stored renderings by key, for the latest revision of each: bounded, evicting by second chance (an
 * entry used since it was last passed over is kept once more), close to least recently used without
 * reordering the map on every read of a page's hundred zaken.
 * A key is whatever the rendering depends on besides the revision (the zaak and the base URL).
 */
export class RenderingCache {
  private readonly entries = new Map<string, { revision: string; rendering: Rendering; used: boolean }>();
  constructor(private readonly maxEntries: number) {}

  /** Whether a rendering of any revision is kept for `key`. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string, revision: string): Rendering | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.revision !== revision) return undefined;
    entry.used = true;
    return entry.rendering;
  }

  set(key: string, revision: string, rendering: Rendering): void {
    this.entries.delete(key);
    // Room first, then the new entry: made last, it cannot be the one the sweep evicts.
    while (this.entries.size >= this.maxEntries) {
      const [oldest, entry] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      if (entry.used) this.entries.set(oldest, { ...entry, used: false });
    }
    this.entries.set(key, { revision, rendering, used: false });
  }
}
