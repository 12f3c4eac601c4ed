import type { Knex } from 'knex';
import { checkOptions, optionsSchema, validationError, type Migration, type OpenApiFragment, type Plugin, type RequestContext } from '../../src/plugin-api.js';
import { CrsError, parseCrsUri, transformGeometry, type CrsDefinition, type Geometry } from './transform/index.js';
import { CRS84, CRS84H, SUPPORTED_CRS_URIS, contentCrs, crsParameter, responseCrs, type ResponseCrs } from './crs-negotiation.js';
import { geometryProblems } from './geometry-validation.js';
import { boxLiteral, extentOf, parseBbox, zakenInBbox, type Box } from './bbox.js';
import { featureOperations, inCrs, landingLinks } from './features.js';
import { searchOperations } from './search.js';

export { SUPPORTED_CRS_URIS } from './crs-negotiation.js';

export interface GeoCrsOptions {
  /**
   * The CRS zaakgeometrie is stored in (any supported URI or id; default CRS84). Choose it before the
   * first zaak is stored: the migration converts what the core stored before (CRS84), later changes do not.
   */
  storageCrs?: string;
  /** A `bbox` whose index prefilter finds more zaken than this is refused (400 `bbox-too-large`); default 10000. */
  maxBboxCandidates?: number;
  /**
   * Keep an RD New (EPSG:28992) copy of each zaakgeometrie beside the stored one, written in the same
   * transaction; zaak answers asked in RD read it instead of transforming. Default false.
   */
  storeRdCopy?: boolean;
}

/** The options' JSON Schema: checked when the plugin is made, and the config file's `plugins.geo-crs`. */
export const geoCrsOptionsSchema = optionsSchema<GeoCrsOptions>({
  storageCrs: {
    type: 'string',
    minLength: 1,
    description: 'CRS URI (or id such as EPSG:28992) zaakgeometrie is stored in; default CRS84. Choose it before the first zaak is stored.',
  },
  maxBboxCandidates: {
    type: 'integer',
    minimum: 1,
    description: 'A bbox whose index prefilter finds more zaken than this is refused with 400 bbox-too-large; default 10000.',
  },
  storeRdCopy: { type: 'boolean', description: 'Keep an RD New (EPSG:28992) copy of each zaakgeometrie beside the stored one; default false.' },
}, { description: 'zaakgeometrie in several CRSs, bbox filters and an OGC API Features view (plugins/geo-crs/README.md); in the standard preset.' });

const RD_NEW = parseCrsUri('EPSG:28992');

/** The zaak operations whose responses carry `zaakgeometrie`, and the writes whose bodies may. */
const READS = ['zaak_list', 'zaak_retrieve', 'zaak__zoek'];
const WRITES = ['zaak_create', 'zaak_update', 'zaak_partial_update'];
const WITH_GEOMETRY = new Set([...READS, ...WRITES]);
/** The lists that take `bbox`; the features view answers in its own shape (see features.ts). */
const BBOX_LISTS = ['zaak_list', 'features_items', 'search_get', 'search_post'];
const PATHS: Record<string, [string, string]> = {
  zaak_list: ['/zaken', 'get'],
  zaak_retrieve: ['/zaken/{uuid}', 'get'],
  zaak__zoek: ['/zaken/_zoek', 'post'],
  zaak_create: ['/zaken', 'post'],
  zaak_update: ['/zaken/{uuid}', 'put'],
  zaak_partial_update: ['/zaken/{uuid}', 'patch'],
};

const CRS_DESCRIPTION = "URI van een ondersteund CRS (zie /crss), bijvoorbeeld http://www.opengis.net/def/crs/EPSG/9.9.1/28992.";

/** Zaken per statement when the bbox migration converts what the core stored before the plugin. */
const MIGRATION_BATCH = 1000;

/** Adds the bbox column, its GiST index, and the bboxes (and storage-CRS geometry) of the zaken stored so far. */
function bboxMigration(storageCrs: CrsDefinition): Migration {
  return {
    name: 'geo-crs/001_zaak_bbox',
    async up(knex: Knex) {
      await knex.raw('alter table zaak add column zaakgeometrie_bbox box');
      await knex.raw('create index zaak_zaakgeometrie_bbox on zaak using gist (zaakgeometrie_bbox)');
      // In batches by id, one statement each: a registry with a million zaken is migrated in
      // minutes, not one statement per zaak, and never holds all geometries in memory.
      for (let after = 0; ; ) {
        const rows = (await knex('zaak').whereNotNull('zaakgeometrie').where('id', '>', after).orderBy('id').limit(MIGRATION_BATCH).select('id', 'zaakgeometrie')) as { id: number; zaakgeometrie: Geometry }[];
        if (!rows.length) break;
        const bindings = rows.flatMap((row) => {
          // The core stored geometry as sent, which without this plugin means CRS84.
          const geometry = storageCrs === CRS84 ? row.zaakgeometrie : transformGeometry(row.zaakgeometrie, CRS84, storageCrs);
          const box = extentOf(geometry);
          return [row.id, JSON.stringify(geometry), box ? boxLiteral(box) : null];
        });
        await knex.raw(
          `update zaak set zaakgeometrie = v.geometry::jsonb, zaakgeometrie_bbox = v.box::box
           from (values ${rows.map(() => '(?::bigint, ?::text, ?::text)').join(', ')}) as v(id, geometry, box) where zaak.id = v.id`,
          bindings,
        );
        after = rows[rows.length - 1].id;
      }
    },
  };
}

/** The bbox index includes the id: the candidates of a bbox come from the index alone (index-only scan). */
const coveringIndexMigration: Migration = {
  name: 'geo-crs/002_zaak_bbox_covering',
  async up(knex: Knex) {
    await knex.raw('drop index zaak_zaakgeometrie_bbox');
    await knex.raw('create index zaak_zaakgeometrie_bbox on zaak using gist (zaakgeometrie_bbox) include (id)');
  },
};

/** The column of the optional RD copies; always there, so turning the option on needs no migration. */
const rdCopyMigration: Migration = {
  name: 'geo-crs/003_zaak_rd_copy',
  up: async (knex: Knex) => void (await knex.raw('alter table zaak add column zaakgeometrie_rd jsonb')),
};

const is3d = (geometry: Geometry): boolean => (geometry.type === 'GeometryCollection' ? geometry.geometries.some(is3d) : (positionLength(geometry.coordinates) ?? 2) > 2);
function positionLength(value: unknown): number | undefined {
  if (!Array.isArray(value)) return undefined;
  return typeof value[0] === 'number' ? value.length : positionLength(value[0]);
}

/** The zaken of a response body: one zaak, or the results of a page. */
function zakenOf(body: unknown): Record<string, unknown>[] {
  if (!body || typeof body !== 'object') return [];
  const results = (body as { results?: unknown }).results;
  return Array.isArray(results) ? (results as Record<string, unknown>[]) : [body as Record<string, unknown>];
}

/**
 * geo-crs: zaakgeometrie validated with JTS and stored in one CRS with an indexed bounding box;
 * `bbox`, `bbox-crs` and `crs` on the zaak list, `Content-Crs` on every zaak response, the ZGW
 * `Accept-Crs` / `Content-Crs` headers, and `GET /crss`. See README.md.
 */
export function geoCrs(options: GeoCrsOptions = {}): Plugin {
  checkOptions('geoCrs', geoCrsOptionsSchema, options);
  let storageCrs: CrsDefinition;
  try {
    storageCrs = parseCrsUri(options.storageCrs ?? CRS84.uri);
  } catch (error) {
    throw new Error(`geo-crs: storageCrs ${JSON.stringify(options.storageCrs)} is not a supported CRS (see GET /crss)`, { cause: error });
  }
  const maxCandidates = options.maxBboxCandidates ?? 10000;
  // In RD storage the stored geometry is the RD copy.
  const rdCopies = options.storeRdCopy === true && storageCrs !== RD_NEW;
  const wanted = new WeakMap<RequestContext, ResponseCrs | undefined>();
  const inBbox = new WeakMap<RequestContext, number[]>();
  /** The extent of `_zoek`'s `zaakgeometrie.within` in the storage CRS: a zaak within it has its box inside. */
  const withinExtent = new WeakMap<RequestContext, Box>();

  /** Geometry of a request body, from its Content-Crs into the storage CRS, refused when invalid there. */
  const toStorage = (geometry: Geometry, crs: CrsDefinition, path: string): Geometry => {
    const problems = geometryProblems(geometry, crs, path);
    if (problems.length) throw validationError(problems);
    if (crs === storageCrs) return geometry;
    try {
      return transformGeometry(geometry, crs, storageCrs);
    } catch (error) {
      if (!(error instanceof CrsError)) throw error;
      throw validationError([{ name: path, code: 'coordinates-out-of-bounds', reason: `De geometrie ligt buiten het geldigheidsgebied van de opslag (${storageCrs.name}).` }]);
    }
  };

  /** The zaken a `bbox` (in `bbox-crs`) selects, for the list's filter. */
  const bboxIds = async (ctx: RequestContext): Promise<void> => {
    const bboxCrs = typeof ctx.query['bbox-crs'] === 'string' ? crsParameter('bbox-crs', ctx.query['bbox-crs']) : CRS84;
    if (typeof ctx.query.bbox !== 'string') return;
    const boxes = parseBbox(ctx.query.bbox, bboxCrs);
    inBbox.set(ctx, await zakenInBbox(ctx.db, { boxes, crs: bboxCrs, storageCrs, maxCandidates }));
  };

  /** The RD copy of a stored geometry; null outside RD's area (answers in RD then refuse it, as without copies). */
  const rdCopyOf = (geometry: Geometry): string | null => {
    try {
      return JSON.stringify(transformGeometry(geometry, storageCrs, RD_NEW));
    } catch (error) {
      if (error instanceof CrsError) return null;
      throw error;
    }
  };

  /** The zaken's geometry in RD: the stored copies, transformed on the fly where a zaak has none (stored before the option). */
  const fromRdCopies = async (ctx: RequestContext, zaken: Record<string, unknown>[]): Promise<(Geometry | null)[]> => {
    const uuids = zaken.filter((zaak) => zaak.zaakgeometrie).map((zaak) => String(zaak.uuid));
    const rows = uuids.length
      ? ((await ctx.db('zaak').whereRaw('uuid = any(?::uuid[])', [`{${uuids.join(',')}}`]).select('uuid', 'zaakgeometrie_rd')) as { uuid: string; zaakgeometrie_rd: Geometry | null }[])
      : [];
    const copies = new Map(rows.map((row) => [row.uuid, row.zaakgeometrie_rd]));
    return zaken.map((zaak) => copies.get(String(zaak.uuid)) ?? inCrs((zaak.zaakgeometrie as Geometry | null) ?? null, storageCrs, RD_NEW));
  };

  /** `_zoek`'s `zaakgeometrie.within`: from `filter-crs` (else Content-Crs, else CRS84) into the storage CRS, and its extent for the index. */
  const withinSearch = (ctx: RequestContext): void => {
    const filterCrs = typeof ctx.query['filter-crs'] === 'string' ? crsParameter('filter-crs', ctx.query['filter-crs']) : undefined;
    const within = (ctx.body?.zaakgeometrie as { within?: Geometry } | undefined)?.within;
    if (!within) return;
    const crs = filterCrs ?? contentCrs(ctx.req.get('content-crs'));
    const area = toStorage(within, crs, 'zaakgeometrie.within');
    ctx.body!.zaakgeometrie = { within: area };
    const extent = extentOf(area);
    if (!extent) return;
    withinExtent.set(ctx, extent);
    // The prefilter is the filter of the `filter-crs` parameter, which the core applies when the parameter is present.
    ctx.query['filter-crs'] = crs.uri;
  };

  return {
    name: 'geo-crs',
    setup(api) {
      api.defineProblem('bbox-too-large', 400, 'De bbox is te groot.');
      api.addMigrations([bboxMigration(storageCrs), coveringIndexMigration, rdCopyMigration]);
      const crsParam = { name: 'crs', description: `Het CRS van de geometrie in het antwoord; gaat voor Accept-Crs. ${CRS_DESCRIPTION}`, schema: { type: 'string' } };
      for (const id of READS) api.addQueryParameter(id, crsParam);
      api.addQueryParameter('zaak__zoek', {
        name: 'filter-crs',
        description: `Het CRS van zaakgeometrie.within (standaard: Content-Crs, anders CRS84); gaat voor Content-Crs. ${CRS_DESCRIPTION}`,
        schema: { type: 'string' },
        // The index prefilter of `within`; the core's exact test (JTS) then runs on these candidates only.
        filter: (query, _value, ctx) => {
          const extent = withinExtent.get(ctx);
          if (extent) query.whereRaw('zaak.zaakgeometrie_bbox <@ ?::box', [boxLiteral(extent)]);
        },
      });
      for (const operation of [...featureOperations(api.operations(), storageCrs), ...searchOperations(api.operations(), storageCrs)]) api.addOperation(operation);
      for (const id of BBOX_LISTS) {
        api.addQueryParameter(id, { name: 'bbox-crs', description: `Het CRS van bbox (standaard CRS84). ${CRS_DESCRIPTION}`, schema: { type: 'string' } });
        api.addQueryParameter(id, {
          name: 'bbox',
          description:
            'Alleen zaken waarvan de zaakgeometrie deze rechthoek snijdt: minx,miny,maxx,maxy (of 6 getallen met hoogten), in de asvolgorde van bbox-crs.',
          schema: { type: 'string' },
          // One array parameter, not one per id: a town holds hundreds of zaken, planned for each request.
          filter: (query, _value, ctx) => void query.whereRaw('zaak.id = any(?::bigint[])', [`{${(inBbox.get(ctx) ?? []).join(',')}}`]),
        });
      }
      api.addOperation({
        id: 'crs_list',
        method: 'get',
        path: '/crss',
        action: 'list',
        write: false,
        authenticated: false,
        async execute(ctx) {
          ctx.response.body = { crs: SUPPORTED_CRS_URIS, storageCrs: storageCrs.uri };
        },
        openapi: {
          summary: "De ondersteunde CRS'en.",
          description: 'Alle CRS-URI\'s die crs, bbox-crs, Accept-Crs en Content-Crs accepteren (CRS84 eerst), en het CRS waarin zaakgeometrie is opgeslagen.',
          tags: ['crs'],
          successStatus: 200,
          responseSchema: {
            type: 'object',
            properties: {
              crs: { type: 'array', items: { type: 'string', format: 'uri' } },
              storageCrs: { type: 'string', format: 'uri' },
            },
          },
        },
      });
      api.addOpenApi(openApiFragment());
    },

    preHandler: {
      order: 'pre',
      async handler(ctx) {
        const id = ctx.operation.id;
        if (BBOX_LISTS.includes(id)) await bboxIds(ctx);
        if (!WITH_GEOMETRY.has(id)) return undefined;
        wanted.set(ctx, responseCrs(ctx.query.crs, ctx.req.get('accept-crs')));
        if (id === 'zaak__zoek') withinSearch(ctx);
        return undefined;
      },
    },

    validate(ctx) {
      if (!WRITES.includes(ctx.operation.id) && ctx.operation.id !== 'features_create') return;
      const crs = contentCrs(ctx.req.get('content-crs'));
      const geometry = ctx.data?.zaakgeometrie as Geometry | null | undefined;
      if (geometry) ctx.data!.zaakgeometrie = toStorage(geometry, crs, 'zaakgeometrie');
    },

    // Synchronous unless the answer is read from the stored RD copies: most requests pass without a promise.
    serialize(body, ctx) {
      // The API root doubles as the OGC API landing page.
      if (ctx.operation.id === 'api_root') return { title: 'Zaken API', ...(body as object), links: landingLinks(ctx.baseUrl) };
      if (!WITH_GEOMETRY.has(ctx.operation.id) || ctx.response.status >= 300) return undefined;
      const asked = wanted.get(ctx);
      const zaken = zakenOf(body);
      const geometries = zaken.map((zaak) => zaak.zaakgeometrie as Geometry | null | undefined);
      // Not asked: CRS84, or CRS84h when the answer holds heights (seed 3, rule 1).
      const target = asked?.crs ?? (geometries.some((g) => g && is3d(g)) ? CRS84H : CRS84);
      ctx.response.headers['content-crs'] = asked?.header ?? target.uri;
      if (target === storageCrs) return undefined;
      const answer = (inTarget: (Geometry | null)[]) => {
        const transformed = zaken.map((zaak, i) => (geometries[i] ? { ...zaak, zaakgeometrie: inTarget[i] } : zaak));
        return Array.isArray((body as { results?: unknown }).results) ? { ...(body as object), results: transformed } : transformed[0];
      };
      if (rdCopies && target === RD_NEW) return fromRdCopies(ctx, zaken).then(answer);
      return answer(geometries.map((geometry) => inCrs(geometry ?? null, storageCrs, target)));
    },

    async resourceChanged(change) {
      if (change.resource !== 'zaak' || !change.after) return;
      const geometry = change.after.zaakgeometrie as Geometry | null;
      // A new zaak without geometry has no box to store: no second write of its wide row.
      if (!change.before && !geometry) return;
      if (change.before && JSON.stringify(change.before.zaakgeometrie) === JSON.stringify(geometry)) return;
      const box = geometry ? extentOf(geometry) : undefined;
      const uuid = String(change.after.url).split('/').pop();
      // A copy is cleared when the option is off: turned on again, it must not answer an old geometry.
      const rdCopy = rdCopies && geometry ? rdCopyOf(geometry) : null;
      await change.tx('zaak').where({ uuid }).update({ zaakgeometrie_bbox: box ? boxLiteral(box) : null, zaakgeometrie_rd: rdCopy });
    },
  };
}

/** Headers and responses the served document declares for the CRS negotiation. */
function openApiFragment(): OpenApiFragment {
  const header = (name: string, description: string) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } });
  const acceptCrs = header('Accept-Crs', "Het gewenste CRS van de geometrie in het antwoord: EPSG:4326 (GeoJSON lon/lat), EPSG:3857, EPSG:4258, EPSG:28992 of een CRS-URI. Zonder: CRS84. Een niet ondersteund CRS geeft 406; de parameter crs gaat voor.");
  const contentCrsHeader = header('Content-Crs', 'Het CRS van de geometrie in het verzoek: EPSG:4326 (GeoJSON lon/lat), EPSG:3857, EPSG:4258, EPSG:28992 of een CRS-URI. Zonder: CRS84.');
  const responseHeader = { 'Content-Crs': { description: 'Het CRS van de geometrie in het antwoord (URI, of de vorm uit Accept-Crs).', schema: { type: 'string' } } };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [id, [path, method]] of Object.entries(PATHS)) {
    const parameters = [...(WITH_GEOMETRY.has(id) ? [acceptCrs] : []), ...(WRITES.includes(id) || id === 'zaak__zoek' ? [contentCrsHeader] : [])];
    const status = id === 'zaak_create' ? '201' : '200';
    paths[path] = { ...paths[path], [method]: { parameters, responses: { [status]: { headers: responseHeader } } } };
  }
  return { paths };
}
