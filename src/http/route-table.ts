import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { invokeHandler } from './chain.js';

/** A path of the API (`/zaken/{uuid}`) with a handler per method, and one for every other method. */
export interface TableRoute {
  path: string;
  handlers: ReadonlyMap<string, RequestHandler>;
  otherMethods: RequestHandler;
}

interface CompiledRoute extends TableRoute {
  pattern: RegExp;
  names: string[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(route: TableRoute): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (!name) return escapeRegExp(part);
      names.push(name);
      return '([^/]+)';
    })
    .join('');
  return { ...route, pattern: new RegExp(`^${source}$`), names };
}

const segmentCount = (path: string) => {
  let count = 0;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) count++;
  return count;
};

/** A path parameter as Express decodes it: a malformed %-encoding is a 400. */
function decodeParameter(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch (error) {
    throw Object.assign(error as URIError, { status: 400 });
  }
}

/**
 * The API's routes as one Express middleware: the paths of as many segments as the request's are
 * tried in the order given (an earlier path wins, as Express's routes do), case-sensitively and with
 * no trailing slash. A matched path sets `req.params` and runs the method's handler (`HEAD` that of
 * `GET`), or `otherMethods`; no match goes on to `next`. One layer instead of one per path and
 * method: Express's router walked up to a layer per path, and a route's layers, on every request.
 */
export function routeTable(routes: readonly TableRoute[]): RequestHandler {
  const bySegments = new Map<number, CompiledRoute[]>();
  for (const route of routes.map(compile)) {
    const count = segmentCount(route.path);
    bySegments.set(count, [...(bySegments.get(count) ?? []), route]);
  }
  return function matchRoute(req: Request, res: Response, next: NextFunction): void {
    const path = req.path;
    const candidates = bySegments.get(segmentCount(path));
    if (!candidates) return next();
    for (const route of candidates) {
      const match = route.pattern.exec(path);
      if (!match) continue;
      const params: Record<string, string> = {};
      try {
        for (let i = 0; i < route.names.length; i++) params[route.names[i]] = decodeParameter(match[i + 1]);
      } catch (error) {
        return next(error);
      }
      req.params = params;
      const handler = route.handlers.get(req.method) ?? (req.method === 'HEAD' ? route.handlers.get('GET') : undefined) ?? route.otherMethods;
      invokeHandler(handler, req, res, next);
      return;
    }
    next();
  };
}
