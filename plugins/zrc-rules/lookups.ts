import {
  RemoteError,
  TtlCache,
  referenceError,
  upstream,
  type CatalogKind,
  type CatalogObject,
  type RequestContext,
  type ZaakType,
} from '../../src/plugin-api.js';

/** An informatieobject of a Documenten API, as far as the rules read it. */
export interface Informatieobject {
  url: string;
  informatieobjecttype: string;
  indicatieGebruiksrecht?: boolean | null;
  status?: string | null;
}

/** The fields a fetched document must have to count as that kind of resource. */
const SHAPES = {
  informatieobject: ['url', 'informatieobjecttype'],
  communicatiekanaal: ['url', 'naam', 'omschrijving'],
  zaak: ['url', 'identificatie', 'zaaktype'],
} as const;
type RemoteKind = keyof typeof SHAPES;

function assertShape(kind: RemoteKind, url: string, value: unknown): void {
  const ok = !!value && typeof value === 'object' && !Array.isArray(value) && SHAPES[kind].every((f) => typeof (value as Record<string, unknown>)[f] === 'string');
  if (!ok) throw new RemoteError('invalid-resource', url, `${url} is geen ${kind}.`);
}

/**
 * Remote look-ups of the rules. Every fetch goes through the registry's remote client (host
 * allow-list, timeout, size cap) and is shared within a request, so one URL is fetched once however
 * many rules read it. Communicatiekanalen and remote zaken are also kept for `ttlMs`; documents are
 * not, since their `indicatieGebruiksrecht` and `status` change while a zaak is handled.
 */
export function lookups(ttlMs: number) {
  const perRequest = new WeakMap<RequestContext, Map<string, Promise<unknown>>>();
  const shared = new TtlCache<unknown>(10_000, ttlMs);

  function once<T>(ctx: RequestContext, key: string, load: () => Promise<T>): Promise<T> {
    let memo = perRequest.get(ctx);
    if (!memo) perRequest.set(ctx, (memo = new Map()));
    if (!memo.has(key)) memo.set(key, load());
    return memo.get(key) as Promise<T>;
  }

  async function fetchKind(ctx: RequestContext, kind: RemoteKind, url: string, cached: boolean): Promise<Record<string, unknown>> {
    const load = async () => {
      const value = await ctx.registry.remote.getJson(url);
      assertShape(kind, url, value);
      return value;
    };
    const key = `${kind} ${url}`;
    return once(ctx, key, () => (cached && ttlMs > 0 ? shared.get(key, load) : load())) as Promise<Record<string, unknown>>;
  }

  return {
    /** A zaaktype a client sent (zrc-001): 400 when it cannot be read or is none. */
    async zaaktype(ctx: RequestContext, url: string): Promise<ZaakType> {
      try {
        return await once(ctx, `zaaktype ${url}`, () => ctx.registry.catalog.zaaktype(url));
      } catch (error) {
        throw referenceError('zaaktype', error);
      }
    },

    /** The zaaktype of a stored zaak. It was valid when stored, so a failure now is the catalog's: 502. */
    zaaktypeOf(ctx: RequestContext, zaak: Record<string, unknown>): Promise<ZaakType> {
      const url = String(zaak.zaaktype);
      return upstream('Het zaaktype van de zaak', () => once(ctx, `zaaktype ${url}`, () => ctx.registry.catalog.zaaktype(url)));
    },

    /** A statustype, resultaattype, ... a client sent in `field`. */
    async catalog(ctx: RequestContext, kind: Exclude<CatalogKind, 'zaaktype'>, url: string, field: string): Promise<CatalogObject> {
      try {
        return await once(ctx, `${kind} ${url}`, () => ctx.registry.catalog.get(kind, url));
      } catch (error) {
        throw referenceError(field, error);
      }
    },

    /** All statustypen of a zaaktype (for the end status); a failure is the catalog's. */
    statustypen(ctx: RequestContext, zaaktype: ZaakType): Promise<CatalogObject[]> {
      return upstream('De statustypen van het zaaktype', () => once(ctx, `statustypen ${zaaktype.url}`, () => ctx.registry.catalog.listFor('statustype', zaaktype)));
    },

    /** An informatieobject, fresh for this request. Throws `RemoteError`. */
    informatieobject: (ctx: RequestContext, url: string) => fetchKind(ctx, 'informatieobject', url, false) as Promise<unknown> as Promise<Informatieobject>,
    /** A communicatiekanaal (zrc-010). Throws `RemoteError`. */
    communicatiekanaal: (ctx: RequestContext, url: string) => fetchKind(ctx, 'communicatiekanaal', url, true),
    /** A zaak in another Zaken API (zrc-011). Throws `RemoteError`. */
    remoteZaak: (ctx: RequestContext, url: string) => fetchKind(ctx, 'zaak', url, true),

    /** The documents of the zaak's zaakinformatieobjecten; one that cannot be read is the documents registry's failure: 502. */
    async documentsOf(ctx: RequestContext, zaakUuid: string): Promise<Informatieobject[]> {
      const links = await ctx.registry.zaken.records(ctx, 'zaakinformatieobject', zaakUuid);
      const urls = [...new Set(links.map((link) => String(link.informatieobject)))];
      return upstream('Een informatieobject van de zaak', () =>
        Promise.all(urls.map((url) => fetchKind(ctx, 'informatieobject', url, false) as Promise<unknown> as Promise<Informatieobject>)),
      );
    },
  };
}

export type Lookups = ReturnType<typeof lookups>;
