import type { Knex } from 'knex';
import type { CoreOperation, QueryParameter } from '../../operation.js';
import type { OpenApiFragment } from '../../openapi/build.js';
import type { RequestContext, ZaakScope } from '../../plugin.js';
import { ProblemError, invalidParam, validationError, type InvalidParam } from '../../problem.js';
import { referenceError } from '../../remote/errors.js';
import { requestSchema } from '../../schema/validate.js';
import { geometryErrors, geometrySchema } from '../shared/geometry.js';
import { PAGE_SIZE, limitToPage, literalOffset, paginated, paginatedSchema, paginationParameters, pageOf, type Page } from '../shared/pagination.js';
import { ORDERING_COLUMNS, ORDERING_VALUES, zaakFilters, zaakSearchFilters, type ZaakFilter } from './filters.js';
import { ownFields, renderZaak, zaakSummary } from './representation.js';
import { RenderingCache, handOut, renderingOf, type Rendering } from '../../http/prerendered.js';
import { directRows } from '../../storage/named-statement.js';
import { PREPARED, PREPARED_PAGE } from '../../storage/statement-batching.js';
import { recordChange, requestOrigin, type AnnounceChange, type AuditChange } from '../audittrail/record.js';
import { IdentificatieReserve } from './identificaties.js';
import { localZaakUuid } from '../shared/references.js';
import { ZAKEN_LEZEN, authorizedZaaktypen, hasAnyScope, rankLiteral, restrictToAuthorized, type AccessSubject } from '../shared/access.js';
import {
  findZaakByUuid,
  findZaakKey,
  insertZaak,
  insertZaakAhead,
  relationsOf,
  selectZaken,
  updateZaak,
  withRevision,
  zaakColumnsWithRelations,
  type ZaakRow,
} from './repository.js';
import { zaakSchema } from './schema.js';
import { withinFilter } from './geo-search.js';

const TAG = ['zaken'];
const ref = { $ref: '#/components/schemas/Zaak' };
const createSchema = requestSchema(zaakSchema);
const patchSchema = requestSchema(zaakSchema, { partial: true });

const orderingParameter: QueryParameter = {
  name: 'ordering',
  description: 'Het veld waarop de resultaten geordend worden; een minteken betekent omgekeerde volgorde.',
  schema: { type: 'array', items: { type: 'string', enum: ORDERING_VALUES } },
};

/** Renders rows selected with `zaakColumnsWithRelations`: their derived fields came with them. */
function render(rows: ZaakRow[], baseUrl: string): Record<string, unknown>[] {
  const relations = relationsOf(rows);
  return rows.map((row) => renderZaak(row, relations, baseUrl));
}

/** How many renderings (zaak and base URL) this instance keeps: the pages and zaken read most. */
const RENDERED_ZAKEN = 10_000;

/**
 * A stored rendering depends on the zaak's revision and the base URL it was rendered for. Keyed by
 * the zaak's id, which a page has from its index walk: a page's statement then needs no lookup of
 * each zaak's uuid (a hundred index scans, 0.3 ms a page at 1M zaken).
 */
const renderingKey = (baseUrl: string, id: number) => `${baseUrl} ${id}`;

/** What a page or a read names of each zaak: enough to find its stored rendering. */
interface ZaakKey {
  id: number;
  revision?: unknown;
}

/**
 * The ids of zaken whose renderings were stored, by uuid (neither ever changes): a detail read knows
 * only the uuid, and a rendering to look up is what lets it load the revision alone. A hint, bounded
 * as the renderings are: a wrong or missing one costs a statement, never a wrong answer.
 */
class ZaakIds {
  private readonly ids = new Map<string, number>();
  constructor(private readonly maxEntries: number) {}
  get(uuid: string): number | undefined {
    return this.ids.get(uuid);
  }
  set(uuid: string, id: number): void {
    if (this.ids.get(uuid) === id) return;
    this.ids.delete(uuid);
    if (this.ids.size >= this.maxEntries) this.ids.delete(this.ids.keys().next().value!);
    this.ids.set(uuid, id);
  }
}

/** What an instance keeps of the zaken it rendered. */
interface Rendered {
  renderings: RenderingCache;
  ids: ZaakIds;
}

/**
 * The zaken of `keys` as handed-out renderings, in that order. A rendering stored for the zaak's
 * revision and base URL is reused; the others are read with their relations in one query, rendered
 * and stored. A rendering depends on nothing else: authorization decides which zaken a client gets,
 * never their fields, and what plugins change per request (CRS, expand, API version) they change on
 * the copy, which is then serialized anew.
 */
async function renderedZaken(db: Knex, { renderings, ids }: Rendered, ctx: RequestContext, keys: ZaakKey[], read: ZaakRow[] = []): Promise<Record<string, unknown>[]> {
  const baseUrl = ctx.baseUrl;
  const keyOf = (id: number) => renderingKey(baseUrl, id);
  const found = new Map<number, Rendering>();
  const missing: number[] = [];
  for (const key of keys) {
    const stored = key.revision == null ? undefined : renderings.get(keyOf(key.id), String(key.revision));
    if (stored) found.set(key.id, stored);
    else missing.push(key.id);
  }
  if (missing.length) {
    // Rows the caller read with their relations already need no statement of their own.
    const ready = read.filter((row) => missing.includes(row.id));
    const unread = missing.filter((id) => !ready.some((row) => row.id === id));
    const query = withRevision(selectZaken(db)).whereRaw('zaak.id = any(?)', [unread]).select(zaakColumnsWithRelations(db));
    // A zaak may have changed since the caller's statement: read again, it is sent only if the client may still see it.
    restrictToAuthorized(query, ctx.principal);
    const rows = [...ready, ...(unread.length ? await directRows<ZaakRow>(db, query, PREPARED) : [])];
    const relations = relationsOf(rows);
    for (const row of rows) {
      const rendering = renderingOf(renderZaak(row, relations, baseUrl));
      found.set(row.id, rendering);
      if (row.revision != null) {
        renderings.set(keyOf(row.id), String(row.revision), rendering);
        ids.set(row.uuid, row.id);
      }
    }
  }
  // A zaak removed between the two statements is left out.
  return keys.flatMap((key) => (found.has(key.id) ? [handOut(found.get(key.id)!)] : []));
}

/** What a read's `load` found: the zaak's row, or its current rendering (what was authorized is what is sent). */
const loadedRows = new WeakMap<RequestContext, ZaakRow>();
const loadedRenderings = new WeakMap<RequestContext, Rendering>();

/**
 * The zaak and its revision, in one statement: `ctx.zaak` for authorization, `ctx.zaakRevision` for a
 * cache, and the row whose stored rendering a read looks up (`execute`) after them. With `relations`
 * also what its derived fields come from: a write renders the zaak before the change, a read renders
 * a zaak this instance has no rendering of.
 */
async function loadZaak(ctx: RequestContext, relations: boolean): Promise<ZaakRow> {
  const row = await findZaakByUuid(ctx.registry.storage.knex, ctx.params.uuid, { relations });
  if (!row) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
  ctx.zaak = zaakSummary(row, ctx.baseUrl);
  ctx.zaakRevision = row.revision == null ? undefined : String(row.revision);
  loadedRows.set(ctx, row);
  return row;
}

/**
 * A read's load, in as little as it can: when this instance holds a rendering of the zaak, its id and
 * revision alone, and `ctx.zaak` from the rendering when that is current (a 304 or a 200 from the
 * stored rendering then costs this one statement of three columns); otherwise the row as `loadZaak`
 * reads it, with its relations, so a zaak read for the first time costs one statement too, and one
 * changed since its rendering two. Either way `execute` sends what was loaded and authorized here,
 * never a revision read after it (the rendering may be replaced or evicted in between).
 */
async function loadForRead(ctx: RequestContext, { renderings, ids }: Rendered): Promise<void> {
  const id = ids.get(ctx.params.uuid);
  if (id !== undefined && renderings.has(renderingKey(ctx.baseUrl, id))) {
    const found = await findZaakKey(ctx.registry.storage.knex, ctx.params.uuid);
    if (!found) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
    // The id the database answers, not the hint's: the rendering must be of this row.
    const rendering = found.revision == null ? undefined : renderings.get(renderingKey(ctx.baseUrl, found.id), String(found.revision));
    if (rendering) {
      ctx.zaak = ownFields(rendering.fields);
      ctx.zaakRevision = String(found.revision);
      loadedRenderings.set(ctx, rendering);
      return;
    }
  }
  await loadZaak(ctx, true);
}

/** Changes: also the representation before the change (`ctx.current`). */
async function loadCurrent(ctx: RequestContext): Promise<ZaakRow> {
  const row = await loadZaak(ctx, true);
  ctx.current = render([row], ctx.baseUrl)[0];
  return row;
}

function localDate(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/** `hoofdzaak` is a local reference: it must be the URL of a zaak in this registry. */
async function resolveHoofdzaak(ctx: RequestContext, url: string): Promise<number> {
  const uuid = localZaakUuid(ctx.baseUrl, url);
  if (!uuid) throw invalidParam('hoofdzaak', 'no_match', 'Ongeldige hyperlink - geen URL van een zaak in deze registratie.');
  const hoofdzaak = await findZaakByUuid(ctx.tx ?? ctx.registry.storage.knex, uuid);
  if (!hoofdzaak) throw invalidParam('hoofdzaak', 'does_not_exist', 'Ongeldige hyperlink - object bestaat niet.');
  // Linking to a zaak is only for a client that may see it.
  const subject = { zaaktype: String(hoofdzaak.zaaktype), vertrouwelijkheidaanduiding: String(hoofdzaak.vertrouwelijkheidaanduiding) };
  if (ctx.principal && !hasAnyScope(ctx.principal, subject, [ZAKEN_LEZEN])) {
    throw new ProblemError('permission_denied', { detail: 'Geen toegang tot de hoofdzaak.' });
  }
  return hoofdzaak.id;
}

/**
 * Before the scope check: the zaaktype and vertrouwelijkheidaanduiding the zaak will have, which is
 * what creating or changing it must be authorized for.
 */
async function loadSubject(ctx: RequestContext, creating: boolean): Promise<void> {
  const data: Record<string, unknown> = { ...ctx.body };
  // The standard: when omitted, the zaaktype's vertrouwelijkheidaanduiding applies.
  const zaaktypeChanged = typeof data.zaaktype === 'string' && data.zaaktype !== ctx.current?.zaaktype;
  if (!data.vertrouwelijkheidaanduiding && (creating || zaaktypeChanged)) {
    try {
      data.vertrouwelijkheidaanduiding = (await ctx.registry.catalog.zaaktype(String(data.zaaktype))).vertrouwelijkheidaanduiding;
    } catch (error) {
      throw referenceError('zaaktype', error);
    }
  } else if (data.vertrouwelijkheidaanduiding === undefined && !creating) {
    delete data.vertrouwelijkheidaanduiding;
  }
  ctx.data = data;
}

/** Once authorized: the checks, defaults and resolved references of the values to store. */
async function prepareData(ctx: RequestContext, creating: boolean): Promise<void> {
  const data = ctx.data!;
  const errors: InvalidParam[] = [];
  if (data.zaakgeometrie) errors.push(...geometryErrors(data.zaakgeometrie as Record<string, unknown>, 'zaakgeometrie'));
  if (errors.length) throw validationError(errors);
  if (creating) {
    data.registratiedatum ??= localDate();
    data.archiefstatus ??= 'nog_te_archiveren';
  }
  // Resolved now for its 400/403 before any hook runs; the write reuses the answer.
  if ('hoofdzaak' in data) await hoofdzaakColumn(ctx);
}

const resolvedHoofdzaak = new WeakMap<RequestContext, { url: unknown; id: number | null }>();

/** The hoofdzaak's row id for the write; `ctx.data.hoofdzaak` stays the URL that hooks see. */
async function hoofdzaakColumn(ctx: RequestContext): Promise<{ hoofdzaakId?: number | null }> {
  const data = ctx.data!;
  if (!('hoofdzaak' in data)) return {};
  let resolved = resolvedHoofdzaak.get(ctx);
  if (!resolved || resolved.url !== data.hoofdzaak) {
    resolved = { url: data.hoofdzaak, id: data.hoofdzaak ? await resolveHoofdzaak(ctx, String(data.hoofdzaak)) : null };
    resolvedHoofdzaak.set(ctx, resolved);
  }
  return { hoofdzaakId: resolved.id };
}

const lockedRows = new WeakMap<RequestContext, ZaakRow>();

/**
 * Inside the write's transaction: the zaak the request changes or removes and a hoofdzaak it links
 * anew, locked in uuid order (the order zrc-rules locks them in) and read again. `ctx.zaak` and
 * `ctx.current` are then the zaak as it is now, and the hoofdzaak's access is decided on it as locked.
 */
async function lockZaken(ctx: RequestContext): Promise<void> {
  const tx = ctx.tx!;
  const own: string | undefined = ctx.params.uuid;
  const uuidOf = (url: unknown) => (typeof url === 'string' && url ? localZaakUuid(ctx.baseUrl, url) : undefined);
  // A hoofdzaak the zaak already has is left alone, as zrc-rules does: no lock a destroy of it could wait on.
  const linked = uuidOf(ctx.data?.hoofdzaak) !== uuidOf(ctx.current?.hoofdzaak) ? uuidOf(ctx.data?.hoofdzaak) : undefined;
  for (const uuid of [...new Set([own, linked].filter((u): u is string => !!u))].sort()) {
    if (uuid !== own) {
      await findZaakByUuid(tx, uuid, { forUpdate: true });
      continue;
    }
    const row = await findZaakByUuid(tx, uuid, { forUpdate: true, relations: true });
    if (!row) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
    ctx.zaak = zaakSummary(row, ctx.baseUrl);
    ctx.current = render([row], ctx.baseUrl)[0];
    lockedRows.set(ctx, row);
  }
  if (linked) {
    resolvedHoofdzaak.delete(ctx);
    await hoofdzaakColumn(ctx);
  }
}

/** The answer and audit row of a write, from the zaak's row as written (with its relations, when it has any). */
async function written(ctx: RequestContext, row: ZaakRow, status: number, announce: AnnounceChange, id: AuditChange['zaakId'] = row.id): Promise<void> {
  ctx.result = render([row], ctx.baseUrl)[0];
  ctx.response.status = status;
  ctx.response.body = ctx.result;
  await recordChange(requestOrigin(ctx), {
    zaakId: id,
    hoofdObject: String(ctx.result.url),
    zaak: zaakSummary(row, ctx.baseUrl),
    resource: 'zaak',
    resourceUrl: String(ctx.result.url),
    resourceWeergave: String(ctx.result.identificatie),
    oud: ctx.current ?? null,
    nieuw: ctx.result,
  }, announce);
}

/** The zaak as it will be: what creating or changing it must be authorized for. */
const zaakAfterWrite = (ctx: RequestContext): AccessSubject => ({
  zaaktype: String(ctx.data?.zaaktype ?? ctx.zaak?.zaaktype),
  vertrouwelijkheidaanduiding: String(ctx.data?.vertrouwelijkheidaanduiding ?? ctx.zaak?.vertrouwelijkheidaanduiding),
});

function applyFilters(query: Knex.QueryBuilder, filters: ZaakFilter[], values: Record<string, unknown>): void {
  for (const filter of filters) if (values[filter.name] !== undefined) filter.apply(query, values[filter.name]);
}

function applyOrdering(query: Knex.QueryBuilder, ordering: string[] | undefined): void {
  for (const key of ordering ?? []) {
    const descending = key.startsWith('-');
    query.orderBy(`zaak.${ORDERING_COLUMNS[descending ? key.slice(1) : key]}`, descending ? 'desc' : 'asc');
  }
  query.orderBy('zaak.id', 'asc');
}

/** Filters the `zaak_count` table answers besides authorization: it counts per zaaktype and confidentiality. */
const COUNTED_FILTERS = new Set(['zaaktype', 'zaaktype__in']);

/**
 * The exact count of a list, as a query of one `count` row. Filtered by authorization and zaaktype
 * only: a sum over the counter rows the triggers keep (`core/004_zaak_count`); otherwise a count over
 * the zaak table alone (no joins), which the filters' indexes can answer.
 */
function countQuery(ctx: RequestContext, filters: ZaakFilter[], values: Record<string, unknown>): Knex.QueryBuilder {
  const db = ctx.registry.storage.knex;
  const applied = filters.filter((filter) => values[filter.name] !== undefined);
  const counted = applied.every((filter) => COUNTED_FILTERS.has(filter.name));
  const query = counted ? db('zaak_count as zaak') : db('zaak');
  applyFilters(query, applied, values);
  restrictToAuthorized(query, ctx.principal);
  return counted ? query.select(db.raw('coalesce(sum(n), 0)::bigint as count')) : query.count({ count: '*' });
}

/** The query parameters plugins added with a `filter`, as filters of this request. */
function parameterFilters(ctx: RequestContext): ZaakFilter[] {
  return (ctx.operation.queryParameters ?? []).flatMap((parameter) =>
    parameter.filter && ctx.query[parameter.name] !== undefined ? [{ ...parameter, apply: (q: Knex.QueryBuilder, v: unknown) => parameter.filter!(q, v, ctx) }] : [],
  );
}

/** Up to how many zaaktypen an application's unfiltered list is merged from one walk per zaaktype. */
const MERGED_ZAAKTYPEN = 50;

/**
 * The ids of an unfiltered page, in id order, for an application limited to a few zaaktypen: per
 * zaaktype the first ids it may see, from the `(zaaktype, id)` index alone, merged. Walking all ids in
 * order instead passes every zaak of the other types: with 10 of 100 zaaktypen ten times the ids a
 * page skips (page 10 at 1M zaken: about 4 ms in the database against 0.5 ms).
 */
function mergedPageIds(db: Knex, authorized: Map<string, number>, page: Page): Knex.QueryBuilder {
  // Integers literal, as in `limitToPage`: only the zaaktypen are bound.
  const literal = page.size === PAGE_SIZE;
  const walkLimit = literal && literalOffset(page) ? String(page.offset + page.size) : '?';
  const walks = Array.from(authorized.values(), (rank) => `(select id from zaak where zaaktype = ? and vertrouwelijkheid_rank <= ${rankLiteral(rank)} order by id limit ${walkLimit})`);
  const bindings = [...authorized.keys()].flatMap((zaaktype) => (walkLimit === '?' ? [zaaktype, page.offset + page.size] : [zaaktype]));
  return limitToPage(db.select('id').from(db.raw(`(${walks.join(' union all ')}) as authorized`, bindings)).orderBy('id'), page, literal);
}

/**
 * The count of the merged list, as its `total` column: per confidentiality level one scan of the
 * counter rows' primary key for an array of zaaktypen, bound as one parameter. Not `zaaktype in
 * (...)` as `countQuery` has it: in the generic plan the merged page statement gets (see
 * `limitToPage`), that list is built anew for each of the counter rows it is matched with; an array
 * in an index condition is read once per scan. (One subquery per zaaktype cost ten scans, 0.25 ms of
 * a ten-zaaktype page.)
 */
function mergedCount(db: Knex, authorized: Map<string, number>): Knex.Raw {
  const byRank = new Map<number, string[]>();
  for (const [zaaktype, rank] of authorized) byRank.set(rank, [...(byRank.get(rank) ?? []), zaaktype]);
  const ranks = [...byRank.keys()].sort((a, b) => a - b);
  const counts = ranks.map((rank) => `(select coalesce(sum(n), 0) from zaak_count where zaaktype = any(?::text[]) and vertrouwelijkheid_rank <= ${rankLiteral(rank)})`);
  return db.raw(`(${counts.join(' + ')})::bigint as total`, ranks.map((rank) => byRank.get(rank)!));
}

/**
 * The keys of a page in id order, each zaak's uuid and revision looked up by its id. Not a join of the
 * ids with the zaak table: on a small table (10,000 zaken) PostgreSQL's cost model preferred hashing
 * the whole table to a hundred index lookups, 4 ms a page against 1.
 */
function keysById(db: Knex, pageIds: Knex.QueryBuilder, distinct: boolean): Knex.QueryBuilder {
  const keys = db
    .from(pageIds.as('zaak'))
    .select('zaak.id', db.raw('(select r.revision from zaak_revision r where r.zaak_id = zaak.id) as revision'));
  // A plugin's filter may join and repeat a zaak's id, which the page then lists once.
  return distinct ? keys.distinct() : keys;
}

async function listPage(ctx: RequestContext, rendered: Rendered, listFilters: ZaakFilter[], listValues: Record<string, unknown>): Promise<void> {
  const db = ctx.registry.storage.knex;
  const added = parameterFilters(ctx);
  const filters = [...listFilters, ...added];
  const values = { ...listValues, ...Object.fromEntries(added.map((filter) => [filter.name, ctx.query[filter.name]])) };
  const page = pageOf(ctx);
  // `?ordering=` with no value is the default order: it gets the default order's statements too.
  const ordering = (values.ordering as string[] | undefined)?.length ? (values.ordering as string[]) : undefined;
  /** The page's zaken by id and revision: their renderings are looked up before any row is read. */
  const keysOf = (query: Knex.QueryBuilder) =>
    query.leftJoin('zaak_revision', 'zaak_revision.zaak_id', 'zaak.id').select('zaak.id', { revision: 'zaak_revision.revision' });
  let count: number;
  let keys: ZaakKey[];
  if (values.zaakgeometrie) {
    const base = selectZaken(db);
    applyFilters(base, filters, values);
    restrictToAuthorized(base, ctx.principal);
    const ids = await withinFilter(base, (values.zaakgeometrie as { within: unknown }).within);
    count = ids.length;
    const pageIds = ids.slice(page.offset, page.offset + page.size);
    keys = await keysOf(db('zaak').whereIn('zaak.id', pageIds).orderBy('zaak.id'));
  } else {
    // Lists filtered by authorization alone have a few SQL texts per application (see `limitToPage`;
    // integers literal only in pages of the default size): named from a budget of their own, they are
    // prepared once per connection. Filtered or reordered lists are not: clients cannot pile up statements.
    const prepared = ordering === undefined && filters.every((filter) => values[filter.name] === undefined);
    const authorized = prepared ? authorizedZaaktypen(ctx.principal) : undefined;
    let pageIds: Knex.QueryBuilder;
    let total: Knex.QueryBuilder | Knex.Raw;
    if (authorized?.size && authorized.size <= MERGED_ZAAKTYPEN) {
      pageIds = mergedPageIds(db, authorized, page);
      total = mergedCount(db, authorized);
    } else {
      // Late row lookup: the page's ids from the indexes alone, then only those rows (deep pages skip ids, not rows).
      pageIds = db('zaak').select('zaak.id');
      applyFilters(pageIds, filters, values);
      restrictToAuthorized(pageIds, ctx.principal);
      applyOrdering(pageIds, ordering);
      // Literal integers only where nothing else is bound: a generic plan of an authorization's
      // `zaaktype in (...)` builds that list anew for every row, a custom plan once, hashed.
      limitToPage(pageIds, page, prepared && !authorized && page.size === PAGE_SIZE);
      total = countQuery(ctx, filters, values).as('total');
    }
    // One statement: the count rides along as a column (computed once), so a page is one round trip.
    const pageQuery = ordering === undefined ? keysById(db, pageIds, added.length > 0).select(total) : keysOf(db('zaak').whereIn('zaak.id', pageIds)).select(total);
    applyOrdering(pageQuery, ordering);
    const rows = (prepared ? await directRows(db, pageQuery, PREPARED_PAGE) : await pageQuery) as (ZaakKey & { total: string | number })[];
    // A page past the end has no row to carry the count.
    count = Number(rows.length ? rows[0].total : (await countQuery(ctx, filters, values))[0].count);
    keys = rows;
  }
  ctx.response.body = paginated(ctx, page, count, await renderedZaken(db, rendered, ctx, keys));
}

const searchSchema = {
  type: 'object',
  properties: {
    ...Object.fromEntries([...zaakFilters, ...zaakSearchFilters].map((f) => [f.name, { ...f.schema, description: f.description }])),
    zaakgeometrie: {
      type: 'object',
      description: 'Zaken waarvan de zaakgeometrie binnen deze geometrie ligt.',
      properties: { within: geometrySchema },
      required: ['within'],
    },
    ordering: orderingParameter.schema,
  },
};

/** The schemas the Zaak operations refer to, for the served OpenAPI document. */
export const zaakOpenApi: OpenApiFragment = {
  components: { schemas: { Zaak: zaakSchema, PatchedZaak: patchSchema, ZaakZoek: searchSchema } },
};

/** Runs the plugins' `representZaken` hooks; a promise only when one returned one. */
export type RepresentZaken = (zaken: Record<string, unknown>[], scope: ZaakScope) => Promise<unknown> | undefined;

/**
 * The Zaak resource: /zaken, /zaken/{uuid} and /zaken/_zoek, as in Zaken API 1.5.1. Changes are
 * announced with `announce`; `announceRemoval` announces what destroying a zaak takes with it; every
 * answer's zaken are shaped with `representZaken`.
 */
export function zaakOperations(
  announce: AnnounceChange,
  announceRemoval: (ctx: RequestContext, zaak: ZaakRow) => Promise<void>,
  representZaken: RepresentZaken,
): CoreOperation[] {
  const rendered: Rendered = { renderings: new RenderingCache(RENDERED_ZAKEN), ids: new ZaakIds(RENDERED_ZAKEN) };
  // The zaken of an answer (a page's items, or the zaak itself), shaped by the plugins after the work.
  const represent = (ctx: RequestContext) => {
    const body = ctx.response.body as { results?: unknown } | undefined;
    if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return undefined;
    return representZaken((Array.isArray(body.results) ? body.results : [body]) as Record<string, unknown>[], ctx) as Promise<void> | undefined;
  };
  const identificaties = new IdentificatieReserve();
  return [
    {
      id: 'zaak_list',
      method: 'get',
      path: '/zaken',
      resource: 'zaak',
      action: 'list',
      write: false,
      scopes: ['zaken.lezen'],
      queryParameters: [...zaakFilters, orderingParameter, ...paginationParameters],
      execute: (ctx) => listPage(ctx, rendered, zaakFilters, ctx.query),
      represent,
      openapi: { summary: 'Alle ZAAKen opvragen.', tags: TAG, successStatus: 200, responseSchema: paginatedSchema(ref) },
    },
    {
      id: 'zaak_create',
      method: 'post',
      path: '/zaken',
      resource: 'zaak',
      action: 'create',
      write: true,
      scopes: ['zaken.aanmaken'],
      accessSubjects: (ctx) => [zaakAfterWrite(ctx)],
      requestBody: createSchema,
      load: (ctx) => loadSubject(ctx, true),
      prepare: (ctx) => prepareData(ctx, true),
      lock: lockZaken,
      async execute(ctx) {
        const hoofdzaak = ctx.data!.hoofdzaak ? localZaakUuid(ctx.baseUrl, String(ctx.data!.hoofdzaak)) : null;
        const data = { ...ctx.data!, ...(await hoofdzaakColumn(ctx)) };
        if (ctx.data!.identificatie) identificaties.taken(String(ctx.data!.identificatie));
        const ahead = await insertZaakAhead(ctx.tx!, data, hoofdzaak ?? null, identificaties);
        if (ahead) await written(ctx, ahead.row, 201, announce, ahead.id);
        else await written(ctx, await insertZaak(ctx.tx!, data, hoofdzaak ?? null), 201, announce);
        ctx.response.headers.location = String(ctx.result!.url);
      },
      represent,
      openapi: {
        summary: 'Maak een ZAAK aan.',
        description: 'Zonder identificatie wordt er een gegenereerd, uniek binnen de bronorganisatie.',
        tags: TAG,
        successStatus: 201,
        responseSchema: ref,
        requestSchema: ref,
        successHeaders: { Location: { description: 'URL waar de resource leeft.', schema: { type: 'string', format: 'uri' } } },
      },
    },
    {
      id: 'zaak__zoek',
      method: 'post',
      path: '/zaken/_zoek',
      resource: 'zaak',
      action: 'search',
      write: false,
      scopes: ['zaken.lezen'],
      queryParameters: paginationParameters,
      requestBody: searchSchema,
      async prepare(ctx) {
        // Plugins may add properties (`expand`): the operation's schema, not the core's list, decides.
        const known = ctx.operation.requestBody!.properties as Record<string, unknown>;
        const unknown = Object.keys(ctx.req.body ?? {}).filter((key) => !(key in known));
        if (unknown.length) {
          throw invalidParam('nonFieldErrors', 'unknown-parameters', `Onbekende zoekparameters: ${unknown.join(', ')}`);
        }
        const within = (ctx.body?.zaakgeometrie as { within?: Record<string, unknown> } | undefined)?.within;
        if (within) {
          const errors = geometryErrors(within, 'zaakgeometrie.within');
          if (errors.length) throw validationError(errors);
        }
      },
      execute: (ctx) => listPage(ctx, rendered, [...zaakFilters, ...zaakSearchFilters], ctx.body ?? {}),
      represent,
      openapi: {
        summary: 'Voer een (geo)-zoekopdracht uit op ZAAKen.',
        tags: TAG,
        successStatus: 200,
        responseSchema: paginatedSchema(ref),
        requestSchema: { $ref: '#/components/schemas/ZaakZoek' },
      },
    },
    {
      id: 'zaak_retrieve',
      method: 'get',
      path: '/zaken/{uuid}',
      resource: 'zaak',
      action: 'retrieve',
      write: false,
      scopes: ['zaken.lezen'],
      load: (ctx) => loadForRead(ctx, rendered),
      async execute(ctx) {
        const held = loadedRenderings.get(ctx);
        const row = loadedRows.get(ctx)!;
        const [zaak] = held ? [handOut(held)] : await renderedZaken(ctx.registry.storage.knex, rendered, ctx, [row], [row]);
        if (!zaak) throw new ProblemError('not_found', { detail: 'Zaak niet gevonden.' });
        ctx.current = zaak;
        ctx.response.body = zaak;
      },
      represent,
      openapi: { summary: 'Een specifieke ZAAK opvragen.', tags: TAG, successStatus: 200, responseSchema: ref },
    },
    ...(['update', 'partial_update'] as const).map(
      (action): CoreOperation => ({
        id: `zaak_${action}`,
        method: action === 'update' ? 'put' : 'patch',
        path: '/zaken/{uuid}',
        resource: 'zaak',
        action,
        write: true,
        scopes: ['zaken.bijwerken', 'zaken.geforceerd-bijwerken'],
        // Allowed on the zaak as it is and as it will be: no moving a zaak out of one's reach.
        accessSubjects: (ctx) => [ctx.zaak as unknown as AccessSubject, zaakAfterWrite(ctx)],
        requestBody: action === 'update' ? createSchema : patchSchema,
        async load(ctx) {
          await loadCurrent(ctx);
          await loadSubject(ctx, false);
        },
        prepare: (ctx) => prepareData(ctx, false),
        // Locked, concurrent updates of one zaak apply one after the other.
        lock: lockZaken,
        async execute(ctx) {
          const row = lockedRows.get(ctx)!;
          if (ctx.data!.identificatie) identificaties.taken(String(ctx.data!.identificatie));
          await updateZaak(ctx.tx!, row.id, { ...ctx.data!, ...(await hoofdzaakColumn(ctx)) });
          const updated = (await selectZaken(ctx.tx!).where('zaak.id', row.id).first(zaakColumnsWithRelations(ctx.tx as unknown as Knex))) as ZaakRow;
          await written(ctx, updated, 200, announce);
        },
        represent,
        openapi: {
          summary: action === 'update' ? 'Werk een ZAAK in zijn geheel bij.' : 'Werk een ZAAK deels bij.',
          tags: TAG,
          successStatus: 200,
          responseSchema: ref,
          requestSchema: action === 'update' ? ref : { $ref: '#/components/schemas/PatchedZaak' },
        },
      }),
    ),
    {
      id: 'zaak_destroy',
      method: 'delete',
      path: '/zaken/{uuid}',
      resource: 'zaak',
      action: 'destroy',
      write: true,
      scopes: ['zaken.verwijderen'],
      load: async (ctx) => void (await loadCurrent(ctx)),
      lock: lockZaken,
      async execute(ctx) {
        const row = lockedRows.get(ctx)!;
        ctx.response.status = 204;
        await announceRemoval(ctx, row);
        // Deelzaken, rollen and the other related records go with it (ON DELETE CASCADE): zrc-023.
        await ctx.tx!('zaak').where({ id: row.id }).delete();
      },
      openapi: { summary: 'Verwijder een ZAAK.', tags: TAG, successStatus: 204 },
    },
  ];
}


