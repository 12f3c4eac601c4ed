import type { NextFunction, Request, Response } from 'express';
import { UNROUTED, type Operation, type QueryParameter } from '../operation.js';
import type { PluginHost } from '../plugin-host.js';
import type { RegistryServices, RequestContext, ResponseState } from '../plugin.js';
import { ProblemError, invalidParam, validationError, type InvalidParam } from '../problem.js';
import { characterErrors } from '../schema/input-limits.js';
import { dropUnsetNulls, pickDeclared, validate } from '../schema/validate.js';
import { assertAccess, type AccessSubject } from '../resources/shared/access.js';
import { UUID_PATTERN } from '../resources/shared/references.js';
import { requestIdFrom, scopeOf, REQUEST_ID_HEADER } from '../ops/request-scope.js';
import type { RunningOperations } from '../ops/shutdown.js';
import { problemResponse } from './problem-response.js';
import { queryParameters } from './query.js';
import { receivedBody } from './json-body.js';
import { payloadPieces } from './prerendered.js';


/** Converts one raw query value by the parameter's schema (comma lists, booleans, integers). */
function parseValue(parameter: QueryParameter, raw: string): unknown {
  switch (parameter.schema.type) {
    case 'array':
      return raw.split(',').map((v) => v.trim()).filter(Boolean);
    case 'boolean':
      return /^(true|1)$/i.test(raw) ? true : /^(false|0)$/i.test(raw) ? false : raw;
    case 'integer':
      return /^-?\d+$/.test(raw) ? Number(raw) : raw;
    default:
      return raw;
  }
}

/** An operation's query parameters by name, made once per list of them. */
const parametersByName = new WeakMap<readonly QueryParameter[], Map<string, QueryParameter>>();
const NO_PARAMETERS: readonly QueryParameter[] = [];

function parseQuery(operation: Operation, req: Request): Record<string, unknown> {
  const parameters = operation.queryParameters ?? NO_PARAMETERS;
  let known = parametersByName.get(parameters);
  if (!known) parametersByName.set(parameters, (known = new Map(parameters.map((p) => [p.name, p]))));
  const raw = queryParameters(req);
  if (!raw.size) return {};
  const unknown = [...raw.keys()].filter((name) => !known.has(name));
  if (unknown.length) {
    throw invalidParam('nonFieldErrors', 'unknown-parameters', `Onbekende query parameters: ${unknown.join(', ')}`);
  }
  const query: Record<string, unknown> = {};
  const errors: InvalidParam[] = [];
  for (const [name, value] of raw) {
    const parameter = known.get(name)!;
    const unstorable = characterErrors(value, name);
    if (unstorable.length) {
      errors.push(...unstorable);
      continue;
    }
    const parsed = parseValue(parameter, value);
    errors.push(...validate(parameter.schema, parsed, name));
    query[name] = parsed;
  }
  if (errors.length) throw validationError(errors);
  return query;
}

/** The body of a request (or of a part of one) checked against the operation's schema, undeclared fields dropped. */
export function parseBody(operation: Operation, body: unknown, strictNulls: boolean): Record<string, unknown> | undefined {
  if (!operation.requestBody) return undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidParam('nonFieldErrors', 'invalid', 'Verwacht een JSON-object als inhoud van het verzoek.');
  }
  const picked = pickDeclared(operation.requestBody, body as Record<string, unknown>);
  const declared = strictNulls ? picked : dropUnsetNulls(operation.requestBody, picked);
  // Before the schema: a format check on such a string would only blur which field is wrong.
  const unstorable = characterErrors(declared);
  if (unstorable.length) throw validationError(unstorable);
  const errors = validate(operation.requestBody, declared);
  if (errors.length) throw validationError(errors);
  return declared;
}

/**
 * Writes the response with `res.end`: no framework-computed ETag; the caching plugin owns that header.
 * The body is serialized before any header is set, so a body that cannot be still leaves room for a problem.
 */
function send(res: Response, response: ResponseState): void {
  const empty = response.body === undefined || response.status === 204 || response.status === 304;
  const pieces = empty ? undefined : payloadPieces(response.body);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.status(response.status);
  if (!pieces) {
    res.end();
    return;
  }
  if (!res.getHeader('content-type')) res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', pieces.reduce((length, piece) => length + piece.length, 0));
  // Corked: the headers and all pieces leave in one writev, as one buffer would.
  res.cork();
  for (let i = 0; i < pieces.length - 1; i++) res.write(pieces[i]);
  res.end(pieces[pieces.length - 1]);
  res.uncork();
}

/** The parts a request ran (`registry.operations.run`, see `parts.ts`): their `afterCommit` hooks run once it commits. */
export const requestParts = new WeakMap<RequestContext, RequestContext[]>();

/** zrc-006: the operation's scopes for the zaken it acts on; `authorize` hooks may refuse more. */
export function checkScopes(operation: Operation, ctx: RequestContext): void {
  if (!operation.scopes?.length || !ctx.principal) return;
  const subjects = operation.accessSubjects?.(ctx) ?? (ctx.zaak ? [ctx.zaak as unknown as AccessSubject] : []);
  assertAccess(ctx.principal, operation.scopes, subjects);
}

/** The API version a router serves, and its public base URL when one is configured. */
export interface ServedVersion {
  version: string;
  baseUrl?: string;
  /** Sent on every response of this version. */
  headers?: Record<string, string>;
}

/** Where clients put tokens against RFC 6750's advice (URLs end up in logs and browser histories). */
const QUERY_TOKEN_NAMES = ['access_token', 'token', 'jwt'];

/** A token in the query is refused outright, also beside a valid header, whichever authenticator would judge it. */
function refuseQueryToken(req: Request): void {
  const query = queryParameters(req);
  const name = QUERY_TOKEN_NAMES.find((candidate) => query.has(candidate));
  if (!name) return;
  throw new ProblemError('not_authenticated', {
    detail: `Een token in de query parameter '${name}' wordt nooit geaccepteerd; stuur het in de Authorization header.`,
    headers: { 'www-authenticate': 'Bearer error="invalid_request"' },
  });
}

const isPending = <T>(value: T | Promise<T>): value is Promise<T> => value instanceof Promise;

/** The public base URL of the API version `served` for this request: configured, or where the request came in. */
export function apiBaseUrl(req: Request, served: ServedVersion): string {
  return served.baseUrl ?? `${req.protocol}://${req.get('host')}${req.baseUrl}`;
}

/** The `validate` hooks, then the operation's own rules: every validation error of both in one 400. */
export async function validateWrite(operation: Operation, host: PluginHost, ctx: RequestContext): Promise<void> {
  let hooks: InvalidParam[] = [];
  try {
    await host.run('validate', ctx);
  } catch (error) {
    if (!(error instanceof ProblemError && error.code === 'invalid' && error.invalidParams)) throw error;
    hooks = error.invalidParams;
  }
  const own = (await operation.validate?.(ctx)) ?? [];
  if (hooks.length || own.length) throw validationError([...hooks, ...own]);
}

function requestContext(req: Request, operation: Operation, services: RegistryServices, served: ServedVersion): RequestContext {
  return {
    requestId: scopeOf(req)?.id ?? requestIdFrom(req.headers[REQUEST_ID_HEADER]),
    registry: services,
    apiVersion: served.version,
    operation,
    req,
    // Joined when a plugin reads it (the signing plugin): most requests never need the copy.
    get rawBody() {
      return receivedBody(req);
    },
    baseUrl: apiBaseUrl(req, served),
    params: { ...req.params } as Record<string, string>,
    query: {},
    db: services.storage.knex,
    response: { status: 200, headers: {} },
  };
}

/** What a read left on the context, cleared before it is read again from the primary. */
function restartRead(ctx: RequestContext, primary: RequestContext['db']): void {
  ctx.db = primary;
  ctx.zaak = ctx.zaakRevision = ctx.current = ctx.zaakAttributes = undefined;
  ctx.response = { status: 200, headers: {} };
}

/** Last in the router: an error no operation answered becomes problem+json, through the `onResponse` hooks. */
export function unroutedErrorHandler(host: PluginHost, services: RegistryServices, served: ServedVersion) {
  return async (error: unknown, req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (res.headersSent) return next(error);
    const ctx = requestContext(req, UNROUTED, services, served);
    ctx.error = error;
    ctx.response = problemResponse(error, services.log, { path: req.path });
    try {
      await host.run('onResponse', ctx);
    } catch (hookError) {
      services.log.error('onResponse failed while answering an error', { error: String(hookError) });
    }
    send(res, ctx.response);
  };
}

/** The request lifecycle of `src/lifecycle.ts` around one operation, as an Express handler. */
export function operationHandler(operation: Operation, host: PluginHost, services: RegistryServices, served: ServedVersion, running: RunningOperations) {
  return async (req: Request, res: Response): Promise<void> => {
    running.enter();
    try {
      await answer(req, res);
    } finally {
      running.leave();
    }
  };

  async function answer(req: Request, res: Response): Promise<void> {
    const scope = scopeOf(req);
    if (scope) Object.assign(scope, { operation: operation.id, route: operation.path });
    const ctx = requestContext(req, operation, services, served);
    const { replicas } = services.storage;

    /** From `load` to `preHandler`: the operation's reads and authorization; a response when a hook answered early. */
    async function authorizeRequest(): Promise<ResponseState | undefined> {
      await operation.load?.(ctx);
      checkScopes(operation, ctx);
      await operation.prepare?.(ctx);
      if (operation.write) ctx.data ??= { ...ctx.body };
      const authorized = host.run('authorize', ctx);
      if (authorized) await authorized;
      const answered = host.preHandler(ctx);
      return isPending(answered) ? await answered : answered;
    }

    async function represent(): Promise<void> {
      if (ctx.response.body === undefined) return;
      const represented = operation.represent?.(ctx);
      if (represented) await represented;
      const body = host.serialize(ctx.response.body, ctx);
      ctx.response.body = isPending(body) ? await body : body;
    }

    async function read(): Promise<void> {
      let early = await authorizeRequest();
      // A tag the replica does not confirm may be newer than the replica: only the primary can tell.
      if (!early && replicas?.isReplica(ctx.db) && req.headers['if-none-match']) {
        restartRead(ctx, services.storage.knex);
        early = await authorizeRequest();
      }
      if (early) {
        ctx.response = early;
        return;
      }
      await operation.execute(ctx);
      await represent();
    }

    async function write(): Promise<void> {
      const early = await authorizeRequest();
      if (early) {
        ctx.response = early;
        return;
      }
      await validateWrite(operation, host, ctx);
      await services.storage.transaction(async (tx) => {
        ctx.tx = tx;
        if (operation.lock) {
          // Authorized again on the locked rows: what `load` read may have changed since.
          await operation.lock(ctx);
          checkScopes(operation, ctx);
          await host.run('authorize', ctx);
        }
        await host.run('beforeWrite', ctx);
        await operation.execute(ctx);
        await host.run('afterWrite', ctx);
      });
      ctx.tx = undefined;
      // Before the answer: the client's next read, on any instance, waits for a replica that has this write.
      await replicas?.written(ctx.principal?.clientId);
      await host.run('afterCommit', ctx);
      for (const part of requestParts.get(ctx) ?? []) await host.run('afterCommit', part);
      await represent();
    }

    try {
      // `uuid`, `zaak_uuid`, ...: a malformed identifier names nothing, so 404 before any query.
      for (const [name, value] of Object.entries(ctx.params)) {
        if (!/uuid$/.test(name)) continue;
        if (!UUID_PATTERN.test(value)) throw new ProblemError('not_found');
        ctx.params[name] = value.toLowerCase();
      }
      // Hooks answer synchronously where their handlers do: only what is pending is awaited, since
      // awaiting a plain value still costs promises (and AsyncLocalStorage work on each).
      const requested = host.run('onRequest', ctx);
      if (requested) await requested;
      if (operation.authenticated !== false) {
        refuseQueryToken(req);
        const principal = host.authenticate(ctx);
        ctx.principal = isPending(principal) ? await principal : principal;
        if (!ctx.principal) throw new ProblemError('not_authenticated');
        if (scope) scope.clientId = ctx.principal.clientId;
      }
      ctx.query = parseQuery(operation, req);
      ctx.body = parseBody(operation, req.body, services.strictNulls);
      if (operation.write) await write();
      else if (replicas) {
        ctx.db = await replicas.reader(ctx.principal?.clientId);
        try {
          await read();
        } catch (error) {
          // A replica that failed (down, cancelled by recovery) costs the client nothing: the primary answers.
          if (!replicas.isReplica(ctx.db) || error instanceof ProblemError) throw error;
          replicas.failed(ctx.db, error);
          restartRead(ctx, services.storage.knex);
          await read();
        }
      } else await read();
    } catch (error) {
      ctx.tx = undefined;
      ctx.error = error;
      ctx.response = problemResponse(error, services.log, { operation: operation.id });
    }
    try {
      const responded = host.run('onResponse', ctx);
      if (responded) await responded;
    } catch (error) {
      if (!ctx.error) ctx.response = problemResponse(error, services.log, { operation: operation.id });
      else services.log.error('onResponse failed while answering an error', { error: String(error) });
    }
    try {
      send(res, ctx.response);
    } catch (error) {
      // The last resort: a body that cannot be serialized is still answered, as a problem.
      send(res, problemResponse(error, services.log, { operation: operation.id }));
    }
  }
}
