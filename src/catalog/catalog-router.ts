import express, { type Request, type Router } from 'express';
import { withZaaktypeLists, type StaticCatalogData } from './static-catalog.js';
import type { CatalogObject } from './types.js';

/** Items per page of a list, as the Catalogi API pages them. */
const PAGE_SIZE = 100;

/** The list filters the Catalogi API offers on each collection that this router honours. */
const FILTERS: Record<keyof StaticCatalogData, string[]> = {
  zaaktypen: ['identificatie'],
  statustypen: ['zaaktype'],
  resultaattypen: ['zaaktype'],
  roltypen: ['zaaktype', 'omschrijvingGeneriek'],
  eigenschappen: ['zaaktype'],
  informatieobjecttypen: ['omschrijving'],
};

/**
 * Serves static catalog data as a read-only Catalogi API on the paths of its URLs: each resource at
 * its own URL, each kind's collection (`…/zaaktypen`) as a paginated list `{ count, next, previous,
 * results }` with the Catalogi API's filters (`?zaaktype=` on statustypen, resultaattypen, roltypen
 * and eigenschappen). `data` is read at the first request (a server on port 0 knows its URLs then).
 * Anything else goes on to the next handler.
 */
export function catalogRouter(data: () => StaticCatalogData): Router {
  let served: { byPath: Map<string, CatalogObject>; collections: Map<string, { kind: keyof StaticCatalogData; items: CatalogObject[] }> } | undefined;
  const index = () => {
    if (served) return served;
    const complete = withZaaktypeLists(data());
    served = { byPath: new Map(), collections: new Map() };
    for (const [kind, items] of Object.entries(complete) as [keyof StaticCatalogData, CatalogObject[]][]) {
      for (const item of items ?? []) {
        const { pathname } = new URL(item.url);
        served.byPath.set(pathname, item);
        const collection = pathname.slice(0, pathname.lastIndexOf('/'));
        if (!served.collections.has(collection)) served.collections.set(collection, { kind, items: [] });
        served.collections.get(collection)!.items.push(item);
      }
    }
    return served;
  };
  return express.Router().get(/.*/, (req, res, next) => {
    const { byPath, collections } = index();
    const path = req.path.replace(/\/+$/, '');
    const item = byPath.get(path);
    if (item) return void res.json(item);
    const collection = collections.get(path);
    const page = req.query.page === undefined ? 1 : Number(req.query.page);
    if (!collection || !Number.isInteger(page) || page < 1) return next();
    const matching = collection.items.filter((candidate) =>
      FILTERS[collection.kind].every((filter) => typeof req.query[filter] !== 'string' || candidate[filter] === req.query[filter]),
    );
    const results = matching.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    if (page > 1 && !results.length) return next();
    res.json({
      count: matching.length,
      next: page * PAGE_SIZE < matching.length ? pageUrl(req, page + 1) : null,
      previous: page > 1 ? pageUrl(req, page - 1) : null,
      results,
    });
  });
}

/** The URL of the request with another `page`. */
function pageUrl(req: Request, page: number): string {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host')}`);
  url.searchParams.set('page', String(page));
  return url.toString();
}
