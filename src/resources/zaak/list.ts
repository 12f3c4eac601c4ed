import type { Knex } from 'knex';
import type { QueryParameter } from '../../operation.js';
import type { RequestContext } from '../../plugin.js';
import { directRows } from '../../storage/named-statement.js';
import { PREPARED_PAGE } from '../../storage/statement-batching.js';
import { authorizedZaaktypen, rankLiteral, restrictToAuthorized, textArrayLiteral, textLiteral, zaaktypenByRank } from '../shared/access.js';
import { geometrySchema } from '../shared/geometry.js';
import { PAGE_SIZE, limitToPage, literalOffset, paginated, pageOf, type Page } from '../shared/pagination.js';
import { ORDERING_COLUMNS, ORDERING_VALUES, zaakFilters, zaakSearchFilters, type ZaakFilter } from './filters.js';
import { withinFilter } from './geo-search.js';
import { renderedZaken, type Rendered, type ZaakKey } from './rendered.js';
import { selectZaken } from './repository.js';

export const orderingParameter: QueryParameter = {
  name: 'ordering',
  description: 'Het veld waarop de resultaten geordend worden; een minteken betekent omgekeerde volgorde.',
  schema: { type: 'array', items: { type: 'string', enum: ORDERING_VALUES } },
};

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
function countQuery(ctx: RequestContext, filters: ZaakFilter[], values: Record<string, unknown>, literal = false): Knex.QueryBuilder {
  const db = ctx.db;
  const applied = filters.filter((filter) => values[filter.name] !== undefined);
  const counted = applied.every((filter) => COUNTED_FILTERS.has(filter.name));
  const query = counted ? db('zaak_count as zaak') : db('zaak');
  applyFilters(query, applied, values);
  restrictToAuthorized(query, ctx.principal, undefined, undefined, { literal });
  return counted ? query.select(db.raw('coalesce(sum(n), 0)::bigint as count')) : query.count({ count: '*' });
}

/** The query parameters plugins added with a `filter`, as filters of this request. */
function parameterFilters(ctx: RequestContext): ZaakFilter[] {
  return (ctx.operation.queryParameters ?? []).flatMap((parameter) =>
    parameter.filter && ctx.query[parameter.name] !== undefined ? [{ ...parameter, apply: (q: Knex.QueryBuilder, v: unknown) => parameter.filter!(q, v, ctx) }] : [],
  );
}

/**
 * What an application limited to some zaaktypen may read of those a request filters on (`zaaktype`,
 * `zaaktype__in`), each with its highest readable rank; undefined for one with all autorisaties or a
 * request with any other filter. The filter and the authorization together then name the walks:
 * PostgreSQL, estimating the two conditions as independent, would walk the id index for an early
 * `LIMIT` and pass every zaak to the table's end when the filtered zaaktypen hold nothing readable.
 */
function filteredAuthorized(principal: RequestContext['principal'], filters: ZaakFilter[], values: Record<string, unknown>): ReadonlyMap<string, number> | undefined {
  const applied = filters.filter((filter) => values[filter.name] !== undefined);
  if (!applied.length || !applied.every((filter) => COUNTED_FILTERS.has(filter.name))) return undefined;
  const authorized = authorizedZaaktypen(principal);
  if (!authorized) return undefined;
  let requested: string[] | undefined;
  for (const filter of applied) {
    const value = values[filter.name];
    const these = filter.name === 'zaaktype' ? [value as string] : (value as string[]);
    requested = requested ? requested.filter((zaaktype) => these.includes(zaaktype)) : these;
  }
  return new Map(requested!.filter((zaaktype) => authorized.has(zaaktype)).map((zaaktype) => [zaaktype, authorized.get(zaaktype)!]));
}

/** Up to how many index walks a limited application's list is merged from (past it, one walk along the ids). */
const MERGED_WALKS = 100;

/** The walks of a merged page: one per zaaktype and confidentiality level the application may read. */
const walkCount = (authorized: ReadonlyMap<string, number>) => [...authorized.values()].reduce((sum, rank) => sum + rank, 0);

/**
 * The ids of an unfiltered page, in id order, for an application limited to a few zaaktypen: per
 * zaaktype and level it may read the first ids, from the `(zaaktype, vertrouwelijkheid_rank, id)`
 * index alone, merged. Walking all ids in order instead passes every zaak of the other types (with 10
 * of 100 zaaktypen ten times the ids a page skips), and walking a zaaktype's ids passes its zaken of
 * the levels it may not read (all 10,000 of a type to find its few openbaar ones). A level with no
 * zaak of the type costs one descent of the index, less than asking the counter rows first (a scan of
 * them per walk: at 50 walks, 4.9 ms of execution and 8.9 ms of planning against 1.4 and 3.6).
 */
function mergedPageIds(db: Knex, authorized: ReadonlyMap<string, number>, page: Page): Knex.QueryBuilder {
  // Zaaktypen and integers literal, as in `limitToPage`: a page of the default size binds nothing.
  const literal = page.size === PAGE_SIZE;
  const walkLimit = literal && literalOffset(page) ? String(page.offset + page.size) : '?';
  const walks: string[] = [];
  const bindings: number[] = [];
  for (const [zaaktype, highest] of authorized) {
    for (let rank = 1; rank <= highest; rank++) {
      walks.push(`(select id from zaak where zaaktype = ${textLiteral(zaaktype)} and vertrouwelijkheid_rank = ${rankLiteral(rank)} order by id limit ${walkLimit})`);
      if (walkLimit === '?') bindings.push(page.offset + page.size);
    }
  }
  const union = walks.length ? walks.join(' union all ') : 'select id from zaak where false';
  return limitToPage(db.select('id').from(db.raw(`(${union}) as authorized`, bindings)).orderBy('id'), page, literal);
}

/**
 * The count of the merged list, as its `total` column: per confidentiality level one scan of the
 * counter rows' primary key for an array of zaaktypen. (One subquery per zaaktype cost ten scans,
 * 0.25 ms of a ten-zaaktype page.)
 */
function mergedCount(db: Knex, authorized: ReadonlyMap<string, number>): Knex.Raw {
  const counts = [...zaaktypenByRank(authorized)].map(
    ([rank, zaaktypen]) => `(select coalesce(sum(n), 0) from zaak_count where zaaktype = any(${textArrayLiteral(zaaktypen)}) and vertrouwelijkheid_rank <= ${rankLiteral(rank)})`,
  );
  return db.raw(`(${counts.join(' + ') || '0'})::bigint as total`);
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

export async function listPage(ctx: RequestContext, rendered: Rendered, listFilters: ZaakFilter[], listValues: Record<string, unknown>): Promise<void> {
  const db = ctx.db;
  const added = parameterFilters(ctx);
  const filters = [...listFilters, ...added];
  const values = { ...listValues, ...Object.fromEntries(added.map((filter) => [filter.name, ctx.query[filter.name]])) };
  const page = pageOf(ctx);
  // `?ordering=` with no value is the default order: it gets the default order's statements too.
  const requested = typeof values.ordering === 'string' ? [values.ordering] : (values.ordering as string[] | undefined);
  const ordering = requested?.length ? requested : undefined;
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
    const authorized = prepared ? authorizedZaaktypen(ctx.principal) : ordering === undefined ? filteredAuthorized(ctx.principal, filters, values) : undefined;
    let pageIds: Knex.QueryBuilder;
    let total: Knex.QueryBuilder | Knex.Raw;
    const merged = authorized !== undefined && walkCount(authorized) <= MERGED_WALKS;
    if (merged) {
      pageIds = mergedPageIds(db, authorized, page);
      total = mergedCount(db, authorized);
    } else {
      // Late row lookup: the page's ids from the indexes alone, then only those rows (deep pages skip ids, not rows).
      pageIds = db('zaak').select('zaak.id');
      applyFilters(pageIds, filters, values);
      restrictToAuthorized(pageIds, ctx.principal, undefined, undefined, { literal: prepared });
      applyOrdering(pageIds, ordering);
      limitToPage(pageIds, page, prepared && page.size === PAGE_SIZE);
      total = countQuery(ctx, filters, values, prepared).as('total');
    }
    // One statement: the count rides along as a column (computed once), so a page is one round trip.
    const pageQuery = ordering === undefined ? keysById(db, pageIds, added.length > 0).select(total) : keysOf(db('zaak').whereIn('zaak.id', pageIds)).select(total);
    applyOrdering(pageQuery, ordering);
    // An application's zaaktypen are written into its page statements: planned once per connection
    // with the values known, the arrays hashed (see `restrictToAuthorized`).
    const rows = (prepared ? await directRows(db, pageQuery, PREPARED_PAGE) : await pageQuery) as (ZaakKey & { total: string | number })[];
    // A page past the end has no row to carry the count.
    count = Number(rows.length ? rows[0].total : (await countQuery(ctx, filters, values))[0].count);
    keys = rows;
  }
  ctx.response.body = paginated(ctx, page, count, await renderedZaken(db, rendered, ctx, keys, [], ctx.zaakAttributes));
}

export const searchSchema = {
  type: 'object',
  properties: {
    ...Object.fromEntries([...zaakFilters, ...zaakSearchFilters].map((f) => [f.name, { ...f.schema, description: f.description }])),
    zaakgeometrie: {
      type: 'object',
      description: 'Zaken waarvan de zaakgeometrie binnen deze geometrie ligt.',
      properties: { within: geometrySchema },
      required: ['within'],
    },
    // The contract's one value, or (as earlier releases documented) a list of them.
    ordering: {
      description: orderingParameter.description,
      anyOf: [{ type: 'string', enum: ORDERING_VALUES }, orderingParameter.schema],
    },
  },
};
