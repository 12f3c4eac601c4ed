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
  readonly json: string;
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
  return { fields: deepFreeze(representation), json: JSON.stringify(representation) };
}

/** The target behind a view: its rendering, and its own copy once changed. */
interface View {
  rendering: Rendering;
  copy?: Record<string | symbol, unknown>;
}

const VIEW = Symbol('rendering view');
const read = (view: View) => (view.copy ?? view.rendering.fields) as Record<string | symbol, unknown>;
const own = (view: View) => (view.copy ??= { ...view.rendering.fields });

/** One handler for every view: reads from the rendering until the first change, then from the copy. */
const VIEW_HANDLER: ProxyHandler<View> = {
  get: (view, key) => (key === VIEW ? view : read(view)[key]),
  has: (view, key) => key in read(view),
  ownKeys: (view) => Reflect.ownKeys(read(view)),
  getOwnPropertyDescriptor(view, key) {
    const found = Reflect.getOwnPropertyDescriptor(read(view), key);
    // Reported configurable and writable: the view is a plain object to whoever holds it.
    return found && { value: found.value, enumerable: found.enumerable, writable: true, configurable: true };
  },
  set: (view, key, value) => Reflect.set(own(view), key, value),
  deleteProperty: (view, key) => Reflect.deleteProperty(own(view), key),
  defineProperty: (view, key, descriptor) => Reflect.defineProperty(own(view), key, descriptor),
};

/** The representation for one request: a view of the rendering that serializes to its stored text while unchanged. */
export function handOut(rendering: Rendering): Record<string, unknown> {
  return new Proxy<View>({ rendering }, VIEW_HANDLER) as unknown as Record<string, unknown>;
}

const viewOf = (value: unknown) => (value && typeof value === 'object' ? ((value as Record<symbol, unknown>)[VIEW] as View | undefined) : undefined);

/** A view's JSON text: the stored text while unchanged, its copy serialized once changed; undefined for anything else. */
function viewJson(value: unknown): string | undefined {
  const view = viewOf(value);
  if (!view) return undefined;
  return view.copy ? JSON.stringify(view.copy) : view.rendering.json;
}

/**
 * A response body as JSON text: one handed-out representation, or a page (`results`) of them, from
 * their stored text; anything else by `JSON.stringify`. Byte for byte what `JSON.stringify` gives.
 */
export function toJson(body: unknown): string {
  if (typeof body === 'string') return body;
  const own = viewJson(body);
  if (own !== undefined) return own;
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results) || Array.isArray(body) || !results.some(viewOf)) return JSON.stringify(body);
  const members: string[] = [];
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const text = key === 'results' ? `[${results.map((item) => viewJson(item) ?? JSON.stringify(item) ?? 'null').join(',')}]` : JSON.stringify(value);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * Stored renderings by key, for the latest revision of each: bounded, least recently used first out.
 * A key is whatever the rendering depends on besides the revision (uuid and base URL).
 */
export class RenderingCache {
  private readonly entries = new Map<string, { revision: string; rendering: Rendering }>();
  constructor(private readonly maxEntries: number) {}

  /** Whether a rendering of any revision is kept for `key`. */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string, revision: string): Rendering | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.revision !== revision) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.rendering;
  }

  set(key: string, revision: string, rendering: Rendering): void {
    this.entries.delete(key);
    this.entries.set(key, { revision, rendering });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
