import type { Operation, RequestContext } from '../../src/plugin-api.js';
import type { Geometry, CrsDefinition } from './transform/index.js';
import { CRS84, responseCrs } from './crs-negotiation.js';
import { inCrs } from './features.js';

const DESCRIPTION =
  'Globale ruimtelijke zoekvraag over alle collecties met geometrie (in deze registratie: zaken), met bbox, bbox-crs en crs; het resultaat heeft currentPage, nextPage, pageSize en _embedded.items.';

/**
 * `GET` and `POST /_search` (seed 3): the zaak list's work (authorization, bbox filter, pages), in
 * the shape of the global search: each item carries its `type` and `_links.self.href`.
 */
export function searchOperations(operations: readonly Operation[], storageCrs: CrsDefinition): Operation[] {
  const list = operations.find((operation) => operation.id === 'zaak_list')!;
  const crsParameter = { name: 'crs', description: 'Het CRS van de geometrie in het antwoord (URI, zie /crss).', schema: { type: 'string' } };
  const pageParameters = (list.queryParameters ?? []).filter((p) => p.name === 'page' || p.name === 'pageSize');

  async function execute(ctx: RequestContext): Promise<void> {
    const asked = responseCrs(ctx.query.crs, ctx.req.get('accept-crs'));
    const crs = asked?.crs ?? CRS84;
    await list.execute(ctx);
    const page = ctx.response.body as { next: string | null; results: Record<string, unknown>[] };
    const current = (ctx.query.page as number | undefined) ?? 1;
    ctx.response.body = {
      currentPage: current,
      nextPage: page.next ? current + 1 : null,
      pageSize: (ctx.query.pageSize as number | undefined) ?? page.results.length,
      _embedded: {
        items: page.results.map((zaak) => ({
          type: 'zaak',
          ...zaak,
          zaakgeometrie: inCrs((zaak.zaakgeometrie as Geometry | null) ?? null, storageCrs, crs),
          _links: { self: { href: zaak.url } },
        })),
      },
    };
    ctx.response.headers['content-crs'] = asked?.header ?? crs.uri;
  }

  const openapi = { summary: 'Zoek ruimtelijk in alle collecties.', description: DESCRIPTION, tags: ['zoeken'], successStatus: 200, responseSchema: { type: 'object' } };
  return [
    { ...list, id: 'search_get', path: '/_search', action: 'search', queryParameters: [crsParameter, ...pageParameters], execute, openapi },
    {
      ...list,
      id: 'search_post',
      method: 'post',
      path: '/_search',
      action: 'search',
      queryParameters: [crsParameter, ...pageParameters],
      requestBody: {
        type: 'object',
        additionalProperties: false,
        properties: {
          bbox: { type: 'array', items: { type: 'number' }, minItems: 4, maxItems: 6, description: 'minx, miny, maxx, maxy (of 6 getallen met hoogten).' },
          'bbox-crs': { type: 'string', description: 'Het CRS van bbox (standaard CRS84).' },
          crs: { type: 'string', description: 'Het CRS van de geometrie in het antwoord.' },
        },
      },
      // The body's values are the query's: one bbox filter serves GET and POST.
      async prepare(ctx) {
        const body = ctx.body ?? {};
        if (Array.isArray(body.bbox)) ctx.query.bbox = body.bbox.join(',');
        for (const key of ['bbox-crs', 'crs']) if (typeof body[key] === 'string') ctx.query[key] = body[key];
      },
      execute,
      openapi,
    },
  ];
}
