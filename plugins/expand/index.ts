import {
  checkOptions,
  ProblemError,
  RemoteError,
  remoteReason,
  hasAnyScope,
  type CatalogKind,
  type Plugin,
  type RequestContext,
  type ZaakRecordKind,
} from '../../src/plugin-api.js';

type Resource = Record<string, unknown>;
type CatalogTarget = Exclude<CatalogKind, 'informatieobjecttype'>;

/** What an attribute expands to: a zaak, a record of the same zaak, or a catalog resource. */
type Target = { zaak: true } | { record: ZaakRecordKind } | { catalog: CatalogTarget };
interface Relation {
  target: Target;
  /** The attribute holds a list of URLs (or, for relevanteAndereZaken, of `{url}`). */
  many: boolean;
}
/** An attribute that links to another registry (documents, BAG, ...): expanding it is refused with 406. */
const ELSEWHERE = 'elsewhere';
type Kind = 'zaak' | ZaakRecordKind | CatalogTarget;

const one = (target: Target): Relation => ({ target, many: false });
const many = (target: Target): Relation => ({ target, many: true });
const ZAAK: Target = { zaak: true };

/** Per resource, the attributes that can be expanded: only from this registry and its catalog. */
const RELATIONS: Partial<Record<Kind, Record<string, Relation | typeof ELSEWHERE>>> = {
  zaak: {
    zaaktype: one({ catalog: 'zaaktype' }),
    status: one({ record: 'status' }),
    resultaat: one({ record: 'resultaat' }),
    rollen: many({ record: 'rol' }),
    hoofdzaak: one(ZAAK),
    deelzaken: many(ZAAK),
    relevanteAndereZaken: many(ZAAK),
    eigenschappen: many({ record: 'zaakeigenschap' }),
    zaakobjecten: many({ record: 'zaakobject' }),
    zaakinformatieobjecten: many({ record: 'zaakinformatieobject' }),
    communicatiekanaal: ELSEWHERE,
    selectielijstklasse: ELSEWHERE,
    productenOfDiensten: ELSEWHERE,
  },
  status: {
    statustype: one({ catalog: 'statustype' }),
    zaak: one(ZAAK),
    gezetdoor: one({ record: 'rol' }),
    zaakinformatieobjecten: many({ record: 'zaakinformatieobject' }),
  },
  resultaat: { resultaattype: one({ catalog: 'resultaattype' }), zaak: one(ZAAK) },
  rol: { roltype: one({ catalog: 'roltype' }), zaak: one(ZAAK), statussen: many({ record: 'status' }), betrokkene: ELSEWHERE },
  zaakeigenschap: { eigenschap: one({ catalog: 'eigenschap' }), zaak: one(ZAAK) },
  zaakobject: { zaak: one(ZAAK), object: ELSEWHERE, zaakobjecttype: ELSEWHERE },
  zaakinformatieobject: { zaak: one(ZAAK), status: one({ record: 'status' }), informatieobject: ELSEWHERE },
};

const kindOf = (target: Target): Kind => ('zaak' in target ? 'zaak' : 'record' in target ? target.record : target.catalog);

/** The standard's limit: deeper paths are answered with their first three levels. */
export const MAX_DEPTH = 3;

/** A parsed `expand`: per attribute, what to expand inside it. */
export type ExpandTree = Map<string, ExpandTree>;

const invalid = (path: string, reason: string) =>
  new ProblemError('invalid-expand-field', { detail: reason, invalidParams: [{ name: 'expand', code: 'invalid-expand-field', reason: `${path}: ${reason}` }] });

/**
 * `zaaktype, status.statustype` → a tree, checked against what each level can expand: an unknown
 * or plain attribute is a 404 `invalid-expand-field`, one that links elsewhere a 406.
 */
export function parseExpand(value: string): ExpandTree {
  const tree: ExpandTree = new Map();
  for (const path of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    let node = tree;
    let kind: Kind = 'zaak';
    for (const field of path.split('.').slice(0, MAX_DEPTH)) {
      const relation = RELATIONS[kind]?.[field];
      if (relation === ELSEWHERE) {
        throw new ProblemError('expand-other-source', {
          detail: `${path}: ${field} verwijst naar een andere registratie; uitbreiden kan alleen met gegevens van deze zaakregistratie en haar catalogus.`,
          invalidParams: [{ name: 'expand', code: 'expand-other-source', reason: `${field} ligt buiten deze registratie.` }],
        });
      }
      if (!relation || !Object.hasOwn(RELATIONS[kind]!, field)) throw invalid(path, `${field} is geen uit te breiden attribuut van ${kind}.`);
      if (!node.has(field)) node.set(field, new Map());
      node = node.get(field)!;
      kind = kindOf(relation.target);
    }
  }
  return tree;
}

/** The URLs an attribute holds. */
function urlsOf(resource: Resource, field: string): string[] {
  const value = resource[field];
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : String((v as { url?: unknown })?.url ?? ''))).filter(Boolean);
  return typeof value === 'string' && value ? [value] : [];
}

const uuidOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

/**
 * Loads one relation for a whole level of resources at once: one batch of queries, or one cached
 * catalog look-up per distinct URL. Answers the loaded resources by URL; what the client may not
 * read is left out.
 */
async function loadRelation(ctx: RequestContext, kind: Kind, field: string, relation: Relation, resources: Resource[]): Promise<Map<string, Resource>> {
  const urls = [...new Set(resources.flatMap((r) => urlsOf(r, field)))];
  if (!urls.length) return new Map();
  const { zaken } = ctx.registry;
  const { target } = relation;
  let loaded: Resource[];
  if ('zaak' in target) {
    const readable = (zaak: Resource) =>
      !ctx.principal || hasAnyScope(ctx.principal, { zaaktype: String(zaak.zaaktype), vertrouwelijkheidaanduiding: String(zaak.vertrouwelijkheidaanduiding) }, ['zaken.lezen']);
    // Another registry's zaak in relevanteAndereZaken is not this registry's to expand: left out.
    loaded = (await zaken.list(ctx, urls)).filter(readable);
  } else if ('record' in target) {
    // Records linked from a resource belong to that resource's zaak (which the client may read).
    const zaakUuids = [...new Set(resources.map((r) => (kind === 'zaak' ? String(r.uuid) : uuidOf(String(r.zaak)))))];
    const wanted = new Set(urls);
    loaded = (await zaken.records(ctx, target.record, zaakUuids)).filter((record) => wanted.has(String(record.url)));
  } else {
    loaded = await Promise.all(urls.map((url) => catalogLookup(ctx, target.catalog, url)));
  }
  return new Map(loaded.map((resource) => [String(resource.url), resource]));
}

/** Catalog answers that will not change on a retry: the expanded response cannot be made (the standard's 404). */
const UNRESOLVABLE = new Set(['status', 'invalid-resource', 'not-allowed', 'not-json']);

/** A catalog resource, copied (the catalog's cache shares its objects). */
async function catalogLookup(ctx: RequestContext, kind: CatalogTarget, url: string): Promise<Resource> {
  try {
    return { ...(kind === 'zaaktype' ? await ctx.registry.catalog.zaaktype(url) : await ctx.registry.catalog.get(kind, url)) };
  } catch (error) {
    if (!(error instanceof RemoteError)) throw error;
    const detail = `${kind} ${url} kan niet worden opgenomen: ${remoteReason(error)}`;
    // An outage or timeout is the catalog's failure, worth a retry: 502 as elsewhere.
    throw new ProblemError(UNRESOLVABLE.has(error.reason) ? 'expand-unavailable' : 'bad_gateway', { detail });
  }
}

/** Fills `_expand` on every resource of one level, then on the resources it loaded, level by level. */
export async function expandLevel(ctx: RequestContext, kind: Kind, resources: Resource[], tree: ExpandTree): Promise<void> {
  if (!resources.length || !tree.size) return;
  for (const resource of resources) resource._expand ??= {};
  for (const [field, subtree] of tree) {
    const relation = RELATIONS[kind]![field] as Relation;
    const byUrl = await loadRelation(ctx, kind, field, relation, resources);
    // Per parent its own copy: one resource reached along two paths gets each path's expansions.
    const next: Resource[] = [];
    const copy = (url: string) => {
      const found = byUrl.get(url);
      if (!found) return undefined;
      const resource = { ...found };
      next.push(resource);
      return resource;
    };
    for (const resource of resources) {
      const expanded = resource._expand as Resource;
      const urls = urlsOf(resource, field);
      expanded[field] = relation.many ? urls.map(copy).filter(Boolean) : (urls.length && copy(urls[0])) || {};
    }
    await expandLevel(ctx, kindOf(relation.target), next, subtree);
  }
}

const trees = new WeakMap<RequestContext, ExpandTree>();
const OPERATIONS = new Set(['zaak_list', 'zaak_retrieve', 'zaak__zoek']);
const EXPAND_SCHEMA = {
  type: 'string',
  description:
    'Haal details van gelinkte resources direct op, onder `_expand`. Meerdere resources scheiden met een komma; dieper geneste met de punt-notatie (ten hoogste 3 niveaus).',
  example: 'zaaktype,status,status.statustype,hoofdzaak.status.statustype,hoofdzaak.deelzaken.status.statustype',
};

/**
 * `expand` on GET /zaken, GET /zaken/{uuid} and POST /zaken/_zoek: the linked resources of this
 * registry and its catalog, under `_expand`, loaded per relation for a whole page at once, and only
 * the zaken the client may read.
 */
export function expand(options: Record<string, never> = {}): Plugin {
  // No options: one passed from JavaScript is a mistake worth naming.
  checkOptions('expand', { type: 'object', additionalProperties: false }, options);
  return {
    name: 'expand',
    setup(api) {
      api.defineProblem('invalid-expand-field', 404, 'Het expand-veld is geen uit te breiden attribuut van de resource.');
      api.defineProblem('expand-other-source', 406, 'Uitbreiden kan alleen met gegevens van deze zaakregistratie en haar catalogus.');
      api.defineProblem('expand-unavailable', 404, 'Het antwoord met de uitgebreide gegevens kan niet worden gemaakt.');
      api.addQueryParameter('zaak_list', { name: 'expand', description: EXPAND_SCHEMA.description, schema: EXPAND_SCHEMA });
      api.addQueryParameter('zaak_retrieve', { name: 'expand', description: EXPAND_SCHEMA.description, schema: EXPAND_SCHEMA });
      // Deprecated in _zoek by the contract, in favour of `fields` (zrc-029).
      api.addBodyProperty('zaak__zoek', 'expand', { ...EXPAND_SCHEMA, deprecated: true });
    },

    // Checked before the list is read: a wrong path costs no query.
    preHandler(ctx) {
      if (!OPERATIONS.has(ctx.operation.id)) return undefined;
      const value = ctx.operation.id === 'zaak__zoek' ? ctx.body?.expand : ctx.query.expand;
      if (typeof value === 'string' && value.trim()) trees.set(ctx, parseExpand(value));
      return undefined;
    },

    // Synchronous when nothing is to be expanded: most requests pass without a promise.
    serialize(body, ctx) {
      const tree = trees.get(ctx);
      if (!tree) return undefined;
      const page = body as { results?: Resource[] };
      return expandLevel(ctx, 'zaak', Array.isArray(page.results) ? page.results : [body as Resource], tree).then(() => body);
    },
  };
}
