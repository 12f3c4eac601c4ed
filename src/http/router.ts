import express, { type RequestHandler, type Router } from 'express';
import type { Operation } from '../operation.js';
import type { PluginHost } from '../plugin-host.js';
import type { RegistryServices } from '../plugin.js';
import { accessLog } from '../ops/access-log.js';
import { errorCatalogueAt, requestScope } from '../ops/request-scope.js';
import type { RunningOperations } from '../ops/shutdown.js';
import { traceRequests } from '../ops/tracing.js';
import { apiVersionHeader } from './api-version.js';
import { chain } from './chain.js';
import { jsonBody } from './json-body.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { notFound } from './not-found.js';
import { routeTable, type TableRoute } from './route-table.js';
import { apiBaseUrl, operationHandler, unroutedErrorHandler, type ServedVersion } from './pipeline.js';
import { securityHeaders } from './security-headers.js';

/**
 * The registry's Express stack, in order, steps 0-4 as one layer (`chain`). Strict routing makes
 * `/zaken/` a 404 (no redirects).
 *  0. requestScope      the request id (`X-Request-Id`) and its scope; accessLog: one line per response;
 *     errorCatalogueAt  problem `type`s point at this version's `<base>/docs/errors`;
 *     traceRequests     an OpenTelemetry server span (a no-op without an SDK);
 *     observe           the registry's request metrics, when given
 *  1. apiVersionHeader  `API-Version` (and the version's own headers) on every response
 *  2. securityHeaders   ADR transport headers
 *  3. jsonBody          JSON bodies only (415 / 400 / 413)
 *  4. routeTable        the operations' paths: each method runs its operation through the request
 *                      lifecycle; OPTIONS lists the methods, any other method is a 405 with `Allow`
 *  5. docs              `/docs`: the API reference and the error catalogue, so that every problem
 *                      `type` resolves wherever the router alone is mounted
 *  6. notFound          everything else
 *  7. unroutedErrorHandler  problem+json for errors of the middleware above, through the `onResponse`
 *                      hooks with `ctx.operation` = `UNROUTED`
 */
export function buildRouter(
  operations: readonly Operation[],
  host: PluginHost,
  services: RegistryServices,
  served: ServedVersion,
  running: RunningOperations,
  docs: Router,
  observe?: RequestHandler,
): Router {
  const router = express.Router({ strict: true, caseSensitive: true });
  const byPath = new Map<string, Operation[]>();
  for (const operation of operations) byPath.set(operation.path, [...(byPath.get(operation.path) ?? []), operation]);
  const routes = [...byPath].map(([path, pathOperations]): TableRoute => {
    const handlers = new Map<string, RequestHandler>();
    const allowed = new Set<string>();
    for (const operation of pathOperations) {
      handlers.set(operation.method.toUpperCase(), operationHandler(operation, host, services, served, running));
      allowed.add(operation.method.toUpperCase());
      if (operation.method === 'get') allowed.add('HEAD');
    }
    allowed.add('OPTIONS');
    return { path, handlers, otherMethods: methodNotAllowed([...allowed]) };
  });
  router.use(
    chain([
      requestScope,
      accessLog(services.log),
      errorCatalogueAt((req) => apiBaseUrl(req, served)),
      traceRequests,
      ...(observe ? [observe] : []),
      apiVersionHeader(served.version, served.headers),
      securityHeaders,
      jsonBody,
      routeTable(routes),
    ]),
  );

  router.use('/docs', docs);
  router.use(notFound);
  router.use(unroutedErrorHandler(host, services, served));
  return router;
}
