import { createHash } from 'node:crypto';
import { checkOptions, optionsSchema, toPayload, type OpenApiFragment, type Operation, type Plugin, type RequestContext, type ResponseState } from '../../src/plugin-api.js';

export interface CachingOptions {
  /** How many ETags this instance remembers for answering 304 without rendering (default 50,000). */
  maxEntries?: number;
  /** Request headers that change a representation besides its URL (default `Accept-Crs`). */
  vary?: string[];
}

/** The options' JSON Schema: checked when the plugin is made, and the config file's `plugins.caching`. */
export const cachingOptionsSchema = optionsSchema<CachingOptions>({
  maxEntries: { type: 'integer', minimum: 1, description: 'How many ETags this instance remembers for answering 304 without rendering (default 50000).' },
  vary: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Request headers that change a representation besides its URL (default Accept-Crs).' },
}, { description: 'Strong ETags and 304 answers for `If-None-Match` (plugins/caching/README.md); in the standard preset.' });

/** The entity tags of an `If-None-Match` value; `W/` is ignored, as weak comparison demands (RFC 9110 13.1.2). */
export function parseIfNoneMatch(header: string): { any: boolean; tags: Set<string> } {
  if (header.trim() === '*') return { any: true, tags: new Set() };
  const tags = new Set<string>();
  for (const match of header.matchAll(/(?:W\/)?"([^"]*)"/g)) tags.add(`"${match[1]}"`);
  return { any: false, tags };
}

function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const { any, tags } = parseIfNoneMatch(header);
  return any || tags.has(etag);
}

/** A strong ETag over the exact bytes sent: another base URL, CRS or version gives another tag. */
export const etagOf = (payload: string | Buffer) => `"${createHash('sha256').update(payload).digest('hex').slice(0, 32)}"`;

/**
 * Replaces the registry's `no-store` on a read with an ETag: a private cache (a client's own) may keep
 * it, but must revalidate it with `If-None-Match` before each use; a shared cache keeps nothing. Lists,
 * writes and errors keep `no-store`.
 */
const REVALIDATE = 'private, no-cache';

const isDetailRead = (operation: Operation) => operation.method === 'get' && operation.action === 'retrieve';

interface Remembered {
  /** The zaak whose revision it was computed at (a record can move to another zaak). */
  zaak: string;
  revision: string;
  etag: string;
}

class EtagCache {
  private readonly entries = new Map<string, Remembered>();
  constructor(private readonly max: number) {}
  get(key: string) {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }
  set(key: string, entry: Remembered) {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}

const IF_NONE_MATCH = {
  in: 'header',
  name: 'If-None-Match',
  required: false,
  schema: { type: 'string' },
  description:
    'Voer een voorwaardelijk verzoek uit. Deze header moet één of meerdere ETag-waardes bevatten van resources die de consumer gecached heeft. Indien de waarde van de ETag van de huidige resource voorkomt in deze set, dan antwoordt de provider met een lege HTTP 304 request.',
};
const API_VERSION_HEADER = { description: 'De volledige versie van de API (semver).', schema: { type: 'string' } };
const ETAG_HEADER = {
  description: 'De ETag berekend op de response body JSON. Indien twee resources exact dezelfde ETag hebben, dan zijn deze resources identiek aan elkaar.',
  schema: { type: 'string' },
};

/** ETag, If-None-Match and 304 declared on every documented detail read (GET and HEAD). */
function openApi(operations: readonly Operation[]): OpenApiFragment {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    if (!isDetailRead(operation) || operation.documented === false) continue;
    const declared = {
      parameters: [IF_NONE_MATCH],
      responses: {
        [String(operation.openapi.successStatus)]: { headers: { ETag: ETAG_HEADER } },
        '304': {
          description: 'Not modified: de ETag in If-None-Match is die van de huidige representatie.',
          headers: { ETag: ETAG_HEADER, 'API-Version': API_VERSION_HEADER },
        },
      },
    };
    paths[operation.path] = { get: declared, ...(operation.openapi.head !== false ? { head: declared } : {}) };
  }
  return { paths };
}

/**
 * Strong ETags on every detail read, computed over the JSON the client receives, and `304 Not
 * Modified` for a matching `If-None-Match`. A tag once computed is remembered with the revision of its
 * zaak (`ctx.zaakRevision`, kept by the database), so a repeated conditional GET is answered from the
 * statement that loads the zaak for authorization, without rendering.
 */
export function caching(options: CachingOptions = {}): Plugin {
  checkOptions('caching', cachingOptionsSchema, options);
  const cache = new EtagCache(options.maxEntries ?? 50_000);
  const vary = (options.vary ?? ['Accept-Crs']).map((name) => name.toLowerCase());
  /** The zaak and revision of a request whose answer may be remembered. */
  const revisions = new WeakMap<RequestContext, Omit<Remembered, 'etag'>>();
  const etags = new WeakMap<Buffer, string>();
  // Per client: a plugin may render differently for whoever asks.
  const keyOf = (ctx: RequestContext) =>
    [ctx.baseUrl + ctx.req.path, ctx.principal?.clientId ?? '', ...vary.map((name) => ctx.req.get(name) ?? '')].join('\n');

  return {
    name: 'caching',
    setup(api) {
      api.addOpenApi(openApi(api.operations()));
    },

    // After authorization: a client that may not read the zaak never learns whether a tag matches.
    preHandler(ctx): ResponseState | undefined {
      const header = ctx.req.get('if-none-match');
      // Query parameters (`expand`) make the representation depend on more than this zaak.
      if (!header || !isDetailRead(ctx.operation) || !ctx.zaak || !ctx.zaakRevision || Object.keys(ctx.query).length) return undefined;
      const zaak = String(ctx.zaak.uuid);
      const revision = ctx.zaakRevision;
      revisions.set(ctx, { zaak, revision });
      const known = cache.get(keyOf(ctx));
      if (known?.zaak === zaak && known.revision === revision && matches(header, known.etag)) return { status: 304, headers: { ETag: known.etag, 'Cache-Control': REVALIDATE } };
      return undefined;
    },

    onResponse: {
      // Last: the tag covers the body exactly as the other hooks left it.
      order: 'post',
      handler(ctx) {
        const { response } = ctx;
        if (!isDetailRead(ctx.operation) || response.status !== 200 || response.body === undefined) return;
        const serialized = Buffer.isBuffer(response.body);
        const payload = toPayload(response.body);
        // A current rendering's bytes are the same Buffer on every read: hashed once. A Buffer some
        // other hook made is hashed as it is (it may be a reused one).
        let etag = serialized ? undefined : etags.get(payload);
        if (etag === undefined) {
          etag = etagOf(payload);
          if (!serialized) etags.set(payload, etag);
        }
        const read = revisions.get(ctx);
        if (read) cache.set(keyOf(ctx), { ...read, etag });
        if (matches(ctx.req.get('if-none-match'), etag)) {
          ctx.response = { status: 304, headers: withoutContentHeaders({ ...response.headers, ETag: etag, 'Cache-Control': REVALIDATE }) };
          return;
        }
        // Sent as serialized here: the body is not stringified twice.
        response.body = payload;
        response.headers.ETag = etag;
        response.headers['Cache-Control'] = REVALIDATE;
      },
    },
  };
}

function withoutContentHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-(type|length)$/i.test(name)));
}
