import { ProblemError, type Operation, type RequestContext } from '../../src/plugin-api.js';
import { CrsError, transformGeometry, type CrsDefinition, type Geometry } from './transform/index.js';
import { CRS84, SUPPORTED_CRS_URIS, responseCrs } from './crs-negotiation.js';
import { extentOf } from './bbox.js';

/** The conformance classes implemented: OGC API Features Part 1 (core, GeoJSON) and Part 2 (CRS by reference). */
export const CONFORMANCE = [
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
  'http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs',
];

const GEO_JSON = 'application/geo+json';
const TAG = ['features'];
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 100;

const link = (href: string, rel: string, type: string, title?: string) => ({ href, rel, type, ...(title ? { title } : {}) });

/** The collection `zaken` as OGC API Features describes it. */
function zakenCollection(baseUrl: string, storageCrs: CrsDefinition): Record<string, unknown> {
  return {
    id: 'zaken',
    title: 'Zaken',
    description: 'Zaken met hun zaakgeometrie.',
    itemType: 'feature',
    crs: SUPPORTED_CRS_URIS,
    storageCrs: storageCrs.uri,
    // The registry's data may lie anywhere on earth: the extent is the world, as CRS84 defines it.
    extent: { spatial: { bbox: [[-180, -90, 180, 90]], crs: CRS84.uri } },
    links: [
      link(`${baseUrl}/collections/zaken`, 'self', 'application/json'),
      link(`${baseUrl}/collections/zaken/items`, 'items', GEO_JSON, 'De zaken als features'),
    ],
  };
}

/** A stored geometry in the CRS a client asked for; one that cannot be expressed there is 406. */
export function inCrs(geometry: Geometry | null, storageCrs: CrsDefinition, crs: CrsDefinition): Geometry | null {
  if (!geometry || crs === storageCrs) return geometry;
  try {
    return transformGeometry(geometry, storageCrs, crs);
  } catch (error) {
    if (!(error instanceof CrsError)) throw error;
    throw new ProblemError('not_acceptable', { detail: `Een zaakgeometrie ligt buiten het geldigheidsgebied van ${crs.name}.` });
  }
}

/** A zaak as a Feature: its geometry (in `crs`) and its other fields as properties. */
function featureOf(zaak: Record<string, unknown>, baseUrl: string, storageCrs: CrsDefinition, crs: CrsDefinition): Record<string, unknown> {
  const { zaakgeometrie, ...properties } = zaak;
  const geometry = inCrs((zaakgeometrie as Geometry | null) ?? null, storageCrs, crs);
  return {
    type: 'Feature',
    id: zaak.uuid,
    geometry,
    ...(geometry ? { bbox: extentOf(geometry) } : {}),
    properties,
    links: [link(`${baseUrl}/collections/zaken/items/${String(zaak.uuid)}`, 'self', GEO_JSON), link(String(zaak.url), 'alternate', 'application/json', 'De zaak in de Zaken API')],
  };
}

/** The CRS of a features response: the `crs` parameter, else CRS84 (Part 2). */
function answerIn(ctx: RequestContext): CrsDefinition {
  return responseCrs(ctx.query.crs, undefined)?.crs ?? CRS84;
}

function geoJsonAnswer(ctx: RequestContext, body: unknown, crs: CrsDefinition): void {
  ctx.response.body = body;
  ctx.response.headers['content-type'] = GEO_JSON;
  ctx.response.headers['content-crs'] = `<${crs.uri}>`;
}

const CRS_PARAMETER = { name: 'crs', description: 'Het CRS van de geometrie in het antwoord (URI, zie /collections/zaken).', schema: { type: 'string' } };

/**
 * The OGC API Features view of zaken: the landing page is the API root (see `landingLinks`), then
 * /conformance, /collections, /collections/zaken, and its items, which are the zaak operations'
 * own work (authorization, filters, rules) with the answer turned into GeoJSON features.
 */
export function featureOperations(operations: readonly Operation[], storageCrs: CrsDefinition): Operation[] {
  const byId = (id: string) => operations.find((operation) => operation.id === id)!;
  const list = byId('zaak_list');
  const retrieve = byId('zaak_retrieve');
  const create = byId('zaak_create');
  const metadata = (id: string, path: string, summary: string, body: (ctx: RequestContext) => unknown): Operation => ({
    id,
    method: 'get',
    path,
    action: 'retrieve',
    write: false,
    authenticated: false,
    async execute(ctx) {
      ctx.response.body = body(ctx);
    },
    openapi: { summary, tags: TAG, successStatus: 200, responseSchema: { type: 'object' } },
  });
  return [
    metadata('features_conformance_retrieve', '/conformance', 'De OGC API Features-conformanceklassen die deze API implementeert.', () => ({ conformsTo: CONFORMANCE })),
    metadata('features_collections_retrieve', '/collections', 'De collecties met geometrie.', (ctx) => ({
      links: [link(`${ctx.baseUrl}/collections`, 'self', 'application/json')],
      crs: SUPPORTED_CRS_URIS,
      collections: [zakenCollection(ctx.baseUrl, storageCrs)],
    })),
    metadata('features_collection_retrieve', '/collections/zaken', 'De collectie zaken.', (ctx) => zakenCollection(ctx.baseUrl, storageCrs)),
    {
      ...list,
      id: 'features_items',
      path: '/collections/zaken/items',
      queryParameters: [
        { name: 'limit', description: `Het aantal features per pagina (standaard ${DEFAULT_LIMIT}, maximaal ${MAX_LIMIT}).`, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT } },
        { name: 'page', description: 'De pagina (vanaf 1); de links next en prev wijzen de weg.', schema: { type: 'integer', minimum: 1 } },
        CRS_PARAMETER,
      ],
      async execute(ctx) {
        const crs = answerIn(ctx);
        ctx.query.pageSize = ctx.query.limit ?? DEFAULT_LIMIT;
        await list.execute(ctx);
        const page = ctx.response.body as { count: number; next: string | null; previous: string | null; results: Record<string, unknown>[] };
        const self = new URL(ctx.req.originalUrl, ctx.baseUrl).search;
        geoJsonAnswer(ctx, {
          type: 'FeatureCollection',
          timeStamp: new Date().toISOString(),
          numberMatched: page.count,
          numberReturned: page.results.length,
          features: page.results.map((zaak) => featureOf(zaak, ctx.baseUrl, storageCrs, crs)),
          links: [
            link(`${ctx.baseUrl}/collections/zaken/items${self}`, 'self', GEO_JSON),
            ...(page.next ? [link(page.next, 'next', GEO_JSON)] : []),
            ...(page.previous ? [link(page.previous, 'prev', GEO_JSON)] : []),
          ],
        }, crs);
      },
      openapi: { summary: 'De zaken als GeoJSON-features.', tags: TAG, successStatus: 200, responseSchema: { type: 'object' }, contentType: GEO_JSON },
    },
    {
      ...retrieve,
      id: 'features_item_retrieve',
      path: '/collections/zaken/items/{uuid}',
      queryParameters: [CRS_PARAMETER],
      async execute(ctx) {
        const crs = answerIn(ctx);
        await retrieve.execute(ctx);
        geoJsonAnswer(ctx, featureOf(ctx.response.body as Record<string, unknown>, ctx.baseUrl, storageCrs, crs), crs);
      },
      openapi: { summary: 'Eén zaak als GeoJSON-feature.', tags: TAG, successStatus: 200, responseSchema: { type: 'object' }, contentType: GEO_JSON },
    },
    {
      ...create,
      id: 'features_create',
      path: '/collections/zaken/items',
      requestBody: {
        type: 'object',
        required: ['type', 'properties'],
        properties: {
          type: { type: 'string', enum: ['Feature'] },
          geometry: { ...((create.requestBody!.properties as Record<string, Record<string, unknown>>).zaakgeometrie) },
          properties: create.requestBody,
        },
      },
      // The Feature becomes the zaak it describes; from here on it is POST /zaken.
      async load(ctx) {
        const feature = ctx.body as { geometry?: unknown; properties: Record<string, unknown> };
        ctx.body = { ...feature.properties, ...(feature.geometry ? { zaakgeometrie: feature.geometry } : {}) };
        await create.load!(ctx);
      },
      async execute(ctx) {
        await create.execute(ctx);
        geoJsonAnswer(ctx, featureOf(ctx.response.body as Record<string, unknown>, ctx.baseUrl, storageCrs, CRS84), CRS84);
        ctx.response.headers.location = `${ctx.baseUrl}/collections/zaken/items/${String(ctx.result!.uuid)}`;
      },
      openapi: {
        summary: 'Maak een zaak aan uit een GeoJSON-feature.',
        tags: TAG,
        successStatus: 201,
        responseSchema: { type: 'object' },
        contentType: GEO_JSON,
        successHeaders: { Location: { description: 'URL van de nieuwe feature.', schema: { type: 'string', format: 'uri' } } },
      },
    },
  ];
}

/** The links that make the API root an OGC API landing page. */
export function landingLinks(baseUrl: string): Record<string, unknown>[] {
  return [
    link(baseUrl, 'self', 'application/json', 'Deze pagina'),
    link(`${baseUrl}/openapi.json`, 'service-desc', 'application/vnd.oai.openapi+json;version=3.0', 'De API-definitie'),
    link(`${baseUrl}/conformance`, 'conformance', 'application/json', 'Conformanceklassen'),
    link(`${baseUrl}/collections`, 'data', 'application/json', 'Collecties'),
  ];
}
