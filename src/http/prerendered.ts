/**
 * JSON text made once for a representation and reused while the representation is unchanged: a page
 * of stored renderings is sent by concatenating their text, without serializing each zaak again.
 *
 * A rendering is shared between requests, so it is frozen; each request gets a shallow copy of it
 * (hooks may add or replace fields, as `expand` does). At serialization the copy is compared with its
 * rendering field by field: any change and the copy is serialized as usual.
 */

export interface Rendering {
  readonly fields: Readonly<Record<string, unknown>>;
  readonly keyCount: number;
  readonly json: string;
}

const handedOut = new WeakMap<object, Rendering>();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const nested of Object.values(value)) deepFreeze(nested);
  }
  return value;
}

/** A stored rendering of a representation: frozen, with its JSON text. */
export function renderingOf(representation: Record<string, unknown>): Rendering {
  return { fields: deepFreeze(representation), keyCount: Object.keys(representation).length, json: JSON.stringify(representation) };
}

/** The representation for one request: a copy of the rendering that serializes to its stored text while unchanged. */
export function handOut(rendering: Rendering): Record<string, unknown> {
  const copy = { ...rendering.fields };
  handedOut.set(copy, rendering);
  return copy;
}

/** The stored text of a copy still equal to its rendering, field by field. */
function storedJson(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const rendering = handedOut.get(value);
  if (!rendering) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== rendering.keyCount) return undefined;
  for (const key of keys) if ((value as Record<string, unknown>)[key] !== rendering.fields[key]) return undefined;
  return rendering.json;
}

/**
 * A response body as JSON text: one handed-out representation, or a page (`results`) of them, from
 * their stored text; anything else by `JSON.stringify`. Byte for byte what `JSON.stringify` gives.
 */
export function toJson(body: unknown): string {
  if (typeof body === 'string') return body;
  const own = storedJson(body);
  if (own !== undefined) return own;
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results) || Array.isArray(body) || !results.length) return JSON.stringify(body);
  const texts: string[] = [];
  for (const item of results) {
    const text = storedJson(item);
    if (text === undefined) return JSON.stringify(body);
    texts.push(text);
  }
  const members = Object.entries(body as Record<string, unknown>).flatMap(([key, value]) => {
    if (key === 'results') return [`"results":[${texts.join(',')}]`];
    const text = JSON.stringify(value);
    return text === undefined ? [] : [`${JSON.stringify(key)}:${text}`];
  });
  return `{${members.join(',')}}`;
}

/**
 * Stored renderings by key, for the latest revision of each: bounded, least recently used first out.
 * A key is whatever the rendering depends on besides the revision (uuid and base URL).
 */
export class RenderingCache {
  private readonly entries = new Map<string, { revision: string; rendering: Rendering }>();
  constructor(private readonly maxEntries: number) {}

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
