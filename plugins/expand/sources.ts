import { hasAnyScope, ProblemError, RemoteError, remoteReason, type RequestContext } from '../../src/plugin-api.js';
import { catalogKindOf, localUrl, type CatalogCollectionKind, type LocalKind } from './relations.js';

export type Resource = Record<string, unknown>;

/** How much one request may expand, and with whose credentials other APIs are read. */
export interface ExpandSettings {
  maxObjects: number;
  maxRemoteFetches: number;
  remoteConcurrency: number;
  remoteCredentials: 'caller' | 'registry';
}

/** A resource found for a URL: one of this registry (its kind) or of another API (`remote`). */
export interface Loaded {
  resource: Resource;
  kind: LocalKind | 'remote';
}

/** A URL to load, with what the resource linking it knows. */
export interface Link {
  url: string;
  /** The uuid of the linking resource's zaak: a record it links is one of that zaak. */
  zaak?: string;
  /** A zaak of another registry whose host may not be fetched is left out (relevanteAndereZaken), not refused. */
  leaveOutElsewhere?: boolean;
}

export interface ExpansionSession {
  readonly ctx: RequestContext;
  /** The resources of these links, each looked up once per request; `null`: left out. */
  load(links: Link[]): Promise<Map<string, Loaded | null>>;
  /** Counts objects about to be placed in the answer; over `maxObjects` it is a 400. */
  place(count: number): void;
  /** A resource the request answers anyway (the page's own): reached again, it is not read again. */
  remember(loaded: Loaded): void;
}

/** zrc-028: the expanded answer cannot be made. */
export function unavailable(url: string, reason: string): ProblemError {
  const detail = `${url} kan niet worden opgenomen: ${reason}`;
  return new ProblemError('expand-unavailable', { detail, invalidParams: [{ name: 'expand', code: 'expand-unavailable', reason: detail }] });
}

function overLimit(option: 'maxObjects' | 'maxRemoteFetches', value: number, what: string): ProblemError {
  const reason = `Het antwoord vraagt meer dan ${value} ${what} (${option} = ${value}); vraag minder uit te breiden attributen of een kleinere pagina.`;
  return new ProblemError('expand-limit', { detail: reason, invalidParams: [{ name: 'expand', code: 'expand-limit', reason }] });
}

/** Catalog answers that will not change on a retry: the expanded response cannot be made (404). */
const CATALOG_UNRESOLVABLE = new Set(['status', 'invalid-resource', 'not-allowed', 'not-json']);
/** What another API answers about a resource the client may not see, or that is gone: left out. */
const NOT_FOR_THIS_CLIENT = new Set([401, 403, 404, 410]);

/** Runs `work` on every item, at most `limit` at a time; after a failure no new item starts. */
async function eachBounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await work(items[next++]);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const isObject = (value: unknown): value is Resource => !!value && typeof value === 'object' && !Array.isArray(value);

/**
 * One request's loader: every URL is looked up once (zaken and records of this registry from
 * storage, one query per kind per call; Catalogi API types through the catalog client, which caches;
 * anything else over HTTP to allowed hosts), within the request's limits.
 */
export function expansionSession(ctx: RequestContext, settings: ExpandSettings): ExpansionSession {
  const { zaken, catalog, remote } = ctx.registry;
  const memo = new Map<string, Loaded | null>();
  /** Per record kind, the zaken whose records of that kind are in `memo`. */
  const recordZaken = new Map<LocalKind, Set<string>>();
  let fetches = 0;
  let objects = 0;
  const authorization = settings.remoteCredentials === 'caller' ? (ctx.req.get('authorization') ?? false) : undefined;

  const readable = (zaak: Resource) =>
    !ctx.principal || hasAnyScope(ctx.principal, { zaaktype: String(zaak.zaaktype), vertrouwelijkheidaanduiding: String(zaak.vertrouwelijkheidaanduiding) }, ['zaken.lezen']);

  async function loadZaken(urls: string[]): Promise<void> {
    if (!urls.length) return;
    for (const zaak of await zaken.list(ctx, urls)) memo.set(String(zaak.url), readable(zaak) ? { resource: zaak, kind: 'zaak' } : null);
    for (const url of urls) if (!memo.has(url)) memo.set(url, null);
  }

  /** Records of one kind: all of the zaken asked for, in one query; they are of zaken the client may read. */
  async function loadRecords(kind: LocalKind, urls: string[], zaakUuids: Set<string>): Promise<void> {
    if (!urls.length) return;
    const loaded = recordZaken.get(kind) ?? new Set();
    recordZaken.set(kind, loaded);
    const missing = [...zaakUuids].filter((uuid) => !loaded.has(uuid));
    if (missing.length) {
      for (const record of await zaken.records(ctx, kind as Exclude<LocalKind, 'zaak'>, missing)) memo.set(String(record.url), { resource: record, kind });
      for (const uuid of missing) loaded.add(uuid);
    }
    for (const url of urls) if (!memo.has(url)) memo.set(url, null);
  }

  async function lookUpType(kind: CatalogCollectionKind, url: string): Promise<void> {
    try {
      const type = kind === 'zaaktype' ? await catalog.zaaktype(url) : await catalog.get(kind, url);
      // A copy: the catalog's cache shares its objects.
      memo.set(url, { resource: { ...type }, kind: 'remote' });
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      // An outage or timeout is the catalog's failure, worth a retry: 502 as elsewhere.
      if (!CATALOG_UNRESOLVABLE.has(error.reason)) throw new ProblemError('bad_gateway', { detail: `${kind} ${url} kan niet worden opgehaald: ${remoteReason(error)}` });
      throw unavailable(url, remoteReason(error));
    }
  }

  async function fetchRemote(url: string): Promise<void> {
    try {
      const resource = await remote.getJson(url, { authorization });
      if (!isObject(resource)) throw unavailable(url, 'het antwoord is geen resource.');
      memo.set(url, { resource, kind: 'remote' });
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      if (error.reason === 'status' && NOT_FOR_THIS_CLIENT.has(error.status ?? 0)) return void memo.set(url, null);
      const retry = error.reason === 'timeout' || error.reason === 'network' || error.reason === 'too-large' || (error.reason === 'status' && (error.status === 429 || (error.status ?? 0) >= 500));
      if (retry) throw new ProblemError('bad_gateway', { detail: `${url} kan niet worden opgehaald: ${remoteReason(error)}` });
      throw unavailable(url, remoteReason(error));
    }
  }

  return {
    ctx,
    async load(links) {
      const zaakUrls: string[] = [];
      const records = new Map<LocalKind, { urls: string[]; zaken: Set<string> }>();
      /** Records whose zaak the URL names rather than a resource the client reads: that zaak is checked first. */
      const unverified = new Map<string, string>();
      const types = new Map<string, CatalogCollectionKind>();
      const elsewhere = new Set<string>();
      for (const { url, zaak, leaveOutElsewhere } of links) {
        if (memo.has(url) || types.has(url) || elsewhere.has(url)) continue;
        const local = localUrl(ctx.baseUrl, url);
        if (local === null) throw unavailable(url, 'dit is geen uit te breiden resource van deze registratie.');
        if (local?.kind === 'zaak') zaakUrls.push(url);
        else if (local) {
          const owner = local.zaak ?? zaak;
          if (!owner) throw unavailable(url, 'de zaak van deze resource is niet bekend.');
          if (owner !== zaak) unverified.set(url, `${ctx.baseUrl}/zaken/${owner}`);
          const batch = records.get(local.kind) ?? { urls: [], zaken: new Set<string>() };
          records.set(local.kind, batch);
          batch.urls.push(url);
          batch.zaken.add(owner);
        } else if (catalogKindOf(url)) types.set(url, catalogKindOf(url)!);
        else if (remote.isAllowed(url)) elsewhere.add(url);
        else if (leaveOutElsewhere) memo.set(url, null);
        else throw unavailable(url, 'deze host is niet toegestaan.');
      }
      // Checked before anything is fetched: a request over the limit costs no remote call.
      fetches += types.size + elsewhere.size;
      if (fetches > settings.maxRemoteFetches) throw overLimit('maxRemoteFetches', settings.maxRemoteFetches, 'opvragingen bij andere API’s');
      const fetched = [...[...types].map(([url, kind]) => () => lookUpType(kind, url)), ...[...elsewhere].map((url) => () => fetchRemote(url))];
      const loadLocal = async () => {
        await loadZaken([...new Set([...zaakUrls, ...unverified.values()])].filter((url) => !memo.has(url)));
        for (const [url, owner] of unverified) {
          if (memo.get(owner)) continue;
          // Nothing of a zaak the client may not read is loaded, so nothing of it can be reached later.
          memo.set(url, null);
          for (const batch of records.values()) batch.zaken.delete(owner.slice(owner.lastIndexOf('/') + 1));
        }
        await Promise.all([...records].map(([kind, batch]) => loadRecords(kind, batch.urls.filter((url) => !memo.has(url)), batch.zaken)));
      };
      await Promise.all([loadLocal(), eachBounded(fetched, settings.remoteConcurrency, (fetch) => fetch())]);
      return new Map(links.map(({ url }) => [url, memo.get(url) ?? null]));
    },
    remember(loaded) {
      memo.set(String(loaded.resource.url), loaded);
    },
    place(count) {
      objects += count;
      if (objects > settings.maxObjects) throw overLimit('maxObjects', settings.maxObjects, 'uitgebreide objecten');
    },
  };
}
