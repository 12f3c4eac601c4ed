import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * A client's id is kept only when it is a short token of safe characters: anything else could
 * forge log lines, blow up log storage or smuggle markup into an operator's tools.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** What the registry knows about the request being answered, for logs, traces and outgoing calls. */
export interface RequestScope {
  readonly id: string;
  /** The operation id once routed: the bounded label for metrics and the access log. */
  operation?: string;
  /** The operation's path template, e.g. `/zaken/{uuid}`: never the raw URL. */
  route?: string;
  /** The authenticated client, once known. */
  clientId?: string;
  /** The error catalogue page of the API answering it (`<base>/docs/errors`): problem `type`s point into it. */
  errorCatalogue?: string;
}

const current = new AsyncLocalStorage<RequestScope>();
const scopes = new WeakMap<IncomingMessage, RequestScope>();

/** The request whose work is running now (also inside hooks, storage calls and remote fetches it causes). */
export const currentRequest = (): RequestScope | undefined => current.getStore();

/** Runs `work` as part of a request (an outbox delivery it caused): its logs and remote calls carry the id. */
export const inRequestScope = <T>(scope: RequestScope, work: () => T): T => current.run(scope, work);

/** The scope of a request, once `requestScope` saw it. */
export const scopeOf = (req: IncomingMessage): RequestScope | undefined => scopes.get(req);

/** The client's `X-Request-Id` when it is sane, otherwise a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Gives each request its id (echoed as `X-Request-Id`) and runs the rest of the stack in its scope. */
export function requestScope(req: Request, res: Response, next: NextFunction): void {
  // A request the app already scoped (its router is mounted in the app) stays in that scope, entered
  // again only if something between the two lost it.
  const known = scopes.get(req);
  if (known) return current.getStore() === known ? next() : current.run(known, next);
  const scope: RequestScope = { id: requestIdFrom(req.headers[REQUEST_ID_HEADER]) };
  scopes.set(req, scope);
  res.setHeader(REQUEST_ID_HEADER, scope.id);
  current.run(scope, next);
}

/** Points the problem `type`s of the request at the error catalogue of the API at `apiBase`. */
export function errorCatalogueAt(apiBase: (req: Request) => string) {
  return function errorCatalogue(req: Request, _res: Response, next: NextFunction): void {
    const scope = scopes.get(req);
    if (scope) scope.errorCatalogue = `${apiBase(req)}/docs/errors`;
    next();
  };
}
