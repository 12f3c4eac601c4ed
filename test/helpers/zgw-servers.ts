import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type Router } from 'express';
import type { Applicatie } from '../../src/auth/types.js';
import type { Plugin } from '../../src/index.js';

/** One request a stand-in API received. */
export interface RecordedRequest {
  method: string;
  path: string;
  authorization?: string;
  /** The caller's `X-Request-Id`. */
  requestId?: string;
  body?: unknown;
}

export async function listen(handler: RequestListener): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function stop(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function record(req: IncomingMessage, requests: RecordedRequest[]): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const entry: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, requestId: req.headers['x-request-id'] as string | undefined, body: text ? JSON.parse(text) : undefined };
  requests.push(entry);
  return entry;
}

export function answer(res: ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

/**
 * How a stand-in API behaves: `ok` normally, `error` answers 500, `hang` never answers (the client's
 * timeout must fire), `refuse` stops listening (ECONNREFUSED) until another mode listens on the same port.
 */
export type Mode = 'ok' | 'error' | 'hang' | 'refuse';

export interface ModalServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  host: string;
  /** Read-only: change it with `setMode`, which also (re)opens or closes the listening socket. */
  readonly mode: Mode;
  setMode(mode: Mode): Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 and records every request in `requests`, whatever the mode; in mode `ok`
 * `handler` then answers it.
 */
export async function listenWithModes(
  requests: RecordedRequest[],
  handler: (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => unknown,
): Promise<ModalServer> {
  let mode: Mode = 'ok';
  const hung = new Set<IncomingMessage>();
  const { server, origin } = await listen(async (req, res) => {
    try {
      const recorded = await record(req, requests);
      if (mode === 'error') return answer(res, 500, { detail: 'storing' });
      if (mode === 'hang') return void hung.add(req);
      await handler(req, res, recorded);
    } catch (error) {
      // A broken request (e.g. a body that is not JSON) must fail its test, not crash the test run.
      if (!res.headersSent) answer(res, 500, { detail: String(error) });
    }
  });
  const port = (server.address() as AddressInfo).port;
  const releaseHung = () => {
    for (const req of hung) req.socket.destroy();
    hung.clear();
  };
  const relisten = () =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  return {
    origin,
    host: new URL(origin).host,
    get mode() {
      return mode;
    },
    async setMode(next) {
      mode = next;
      if (next !== 'hang') releaseHung();
      // stop() also ends kept-alive connections, so a pooled client connection cannot slip past the refusal.
      if (next === 'refuse' && server.listening) await stop(server);
      if (next !== 'refuse' && !server.listening) await relisten();
    },
    async close() {
      releaseHung();
      if (server.listening) await stop(server);
    },
  };
}

export interface AutorisatiesApiServer {
  /** Base URL, `http://127.0.0.1:<port>/autorisaties/api/v1`. */
  url: string;
  /** The applications it serves; change them and the next request sees the change. */
  applications: Applicatie[];
  requests: RecordedRequest[];
  /** Answer every request with this status (an outage). */
  failWith?: number;
  /** Results per page (default: all on one page). */
  pageSize?: number;
  /** False: list every application whatever `clientIds` asks (as an older Autorisaties API does). */
  filters?: boolean;
  close(): Promise<void>;
}

/** A small Autorisaties API on 127.0.0.1: `GET /applicaties?clientIds=…`, paginated like the real one (`page`). */
export async function startAutorisatiesApi(applications: Applicatie[] = []): Promise<AutorisatiesApiServer> {
  const path = '/autorisaties/api/v1';
  const state: AutorisatiesApiServer = {
    url: '',
    applications,
    requests: [],
    close: () => stop(server),
  };
  const { server, origin } = await listen(async (req, res) => {
    await record(req, state.requests);
    if (state.failWith) return answer(res, state.failWith, { detail: 'storing' });
    const url = new URL(req.url ?? '', origin);
    if (req.method !== 'GET' || url.pathname !== `${path}/applicaties`) return answer(res, 404, { detail: 'Niet gevonden.' });
    const wanted = (url.searchParams.get('clientIds') ?? '').split(',');
    const matching = state.applications
      .filter((application) => state.filters === false || application.clientIds.some((id) => wanted.includes(id)))
      .map((application, index) => ({ url: `${origin}${path}/applicaties/${index}`, ...application }));
    const size = state.pageSize ?? Math.max(1, matching.length);
    const page = Number(url.searchParams.get('page') ?? '1');
    const link = (n: number) => {
      const target = new URL(url);
      target.searchParams.set('page', String(n));
      return target.toString();
    };
    const last = Math.max(1, Math.ceil(matching.length / size));
    const results = matching.slice((page - 1) * size, page * size);
    answer(res, 200, { count: matching.length, next: page < last ? link(page + 1) : null, previous: page > 1 ? link(page - 1) : null, results });
  });
  state.url = origin + path;
  return state;
}

export interface Abonnement {
  url: string;
  callbackUrl: string;
  auth: string;
  kanalen: { naam: string; filters: Record<string, string> }[];
}

export interface Kanaal {
  url: string;
  naam: string;
  documentatieLink: string;
  filters: string[];
}

export interface NotificatiesApiServer {
  /** Base URL, `http://127.0.0.1:<port>/notificaties/api/v1`. */
  url: string;
  abonnementen: Abonnement[];
  /** Registered kanalen; none at the start (register them over HTTP or put them here). */
  kanalen: Kanaal[];
  /** Every notification accepted on `POST /notificaties`. */
  notificaties: Record<string, unknown>[];
  requests: RecordedRequest[];
  /** Answer every request with 503 while true. */
  down: boolean;
  readonly mode: Mode;
  setMode(mode: Mode): Promise<void>;
  /** Sends a notification on `kanaal` to every abonnement on it (with its auth); the callbacks' statuses. */
  notify(kanaal: string, notification?: Record<string, unknown>): Promise<number[]>;
  close(): Promise<void>;
}

async function postNotification(callbackUrl: string, auth: string, notification: Record<string, unknown>): Promise<number> {
  const response = await fetch(callbackUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: auth },
    body: JSON.stringify(notification),
  });
  await response.arrayBuffer();
  return response.status;
}

function notification(kanaal: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kanaal,
    hoofdObject: 'http://some.hoofdobject.nl/',
    resource: 'some_resource',
    resourceUrl: 'http://some.resource.nl/',
    actie: 'create',
    aanmaakdatum: new Date().toISOString(),
    kenmerken: {},
    ...overrides,
  };
}

/** A ZGW validation error (400) naming the fields at fault, as the ZGW APIs answer one. */
export function answerInvalid(res: ServerResponse, invalidParams: { name: string; code: string }[]): void {
  answer(res, 400, {
    type: 'https://zgw.test/ref/fouten/ValidationError/',
    code: 'invalid',
    title: 'Invalid input.',
    status: 400,
    invalidParams: invalidParams.map((param) => ({ ...param, reason: param.code })),
  });
}

/**
 * A small Notificaties API on 127.0.0.1. Like Open Notificaties, it accepts an abonnement (POST, or
 * PUT on an existing one) only when a test notification to the callback with its auth answers 204,
 * and a notification (`POST /notificaties`) only on a registered kanaal (`GET`/`POST /kanaal`).
 */
export async function startNotificatiesApi(): Promise<NotificatiesApiServer> {
  const path = '/notificaties/api/v1';
  const requests: RecordedRequest[] = [];
  const modal = await listenWithModes(requests, async (req, res, { method, body }) => {
    if (state.down) return answer(res, 503, { detail: 'onderhoud' });
    const url = new URL(req.url ?? '', origin);
    const pathname = url.pathname;
    if (method === 'POST' && pathname === `${path}/notificaties`) {
      const sent = body as Record<string, unknown>;
      if (!state.kanalen.some((k) => k.naam === sent?.kanaal)) return answerInvalid(res, [{ name: 'kanaal', code: 'kanaal_bestaat_niet' }]);
      state.notificaties.push(sent);
      return answer(res, 201, sent);
    }
    if (method === 'GET' && pathname === `${path}/kanaal`) {
      const naam = url.searchParams.get('naam');
      return answer(res, 200, state.kanalen.filter((k) => naam === null || k.naam === naam));
    }
    if (method === 'POST' && pathname === `${path}/kanaal`) {
      const input = (body ?? {}) as Partial<Kanaal>;
      if (typeof input.naam !== 'string' || !input.naam) return answerInvalid(res, [{ name: 'naam', code: 'required' }]);
      if (state.kanalen.some((k) => k.naam === input.naam)) return answerInvalid(res, [{ name: 'naam', code: 'unique' }]);
      const kanaal: Kanaal = { url: `${origin}${path}/kanaal/${randomUUID()}`, naam: input.naam, documentatieLink: input.documentatieLink ?? '', filters: input.filters ?? [] };
      state.kanalen.push(kanaal);
      return answer(res, 201, kanaal);
    }
    if (method === 'GET' && pathname === `${path}/abonnement`) {
      return answer(res, 200, state.abonnementen.map(({ auth: _writeOnly, ...shown }) => shown));
    }
    const existing = state.abonnementen.find((a) => `${origin}${pathname}` === a.url);
    if (!(method === 'POST' && pathname === `${path}/abonnement`) && !(method === 'PUT' && existing)) return answer(res, 404, { detail: 'Niet gevonden.' });
    const input = body as Omit<Abonnement, 'url'>;
    const status = await postNotification(input.callbackUrl, input.auth, notification('test')).catch(() => 0);
    if (status !== 204) return answer(res, 400, { code: 'invalid', invalidParams: [{ name: 'callbackUrl', code: 'invalid-callback-url' }] });
    const abonnement = { ...input, url: existing?.url ?? `${origin}${path}/abonnement/${state.abonnementen.length + 1}` };
    state.abonnementen = [...state.abonnementen.filter((a) => a !== existing), abonnement];
    answer(res, existing ? 200 : 201, abonnement);
  });
  const { origin } = modal;
  const state: NotificatiesApiServer = {
    url: origin + path,
    abonnementen: [],
    kanalen: [],
    notificaties: [],
    requests,
    down: false,
    get mode() {
      return modal.mode;
    },
    setMode: modal.setMode,
    async notify(kanaal, overrides) {
      const subscribed = state.abonnementen.filter((a) => a.kanalen.some((k) => k.naam === kanaal));
      return Promise.all(subscribed.map((a) => postNotification(a.callbackUrl, a.auth, notification(kanaal, overrides))));
    },
    close: modal.close,
  };
  return state;
}

/**
 * An HTTP server on 127.0.0.1 that listens before a registry exists (its URL can go into the
 * registry's options, e.g. a callback URL); `mount` serves a registry's router at `/zaken/api/v1`.
 */
export async function registryServer(): Promise<{ base: string; mount(router: Router): void; close(): Promise<void> }> {
  let app: RequestListener = (_req, res) => answer(res, 503);
  const { server, origin } = await listen((req, res) => app(req, res));
  return {
    base: `${origin}/zaken/api/v1`,
    mount(router) {
      const next = express();
      next.use('/zaken/api/v1', router);
      app = next;
    },
    close: () => stop(server),
  };
}

/** A test operation, `GET /wie-ben-ik`, that answers the principal the request was authenticated as. */
export function whoAmI(): Plugin {
  return {
    name: 'wie-ben-ik',
    setup(api) {
      api.addOperation({
        id: 'wie_ben_ik',
        method: 'get',
        path: '/wie-ben-ik',
        action: 'retrieve',
        write: false,
        documented: false,
        async execute(ctx) {
          ctx.response.body = ctx.principal;
        },
        openapi: { summary: 'Wie ben ik (test).', successStatus: 200 },
      });
    },
  };
}

class RawBody {
  constructor(
    readonly contentType: string,
    readonly body: string,
  ) {}
}

export interface ResourceServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  host: string;
  /** What it serves, by path: change an entry and the next GET sees the change. */
  resources: Map<string, unknown>;
  requests: RecordedRequest[];
  /** Serves `value` at `path` and returns its URL. */
  put(path: string, value: unknown): string;
  /** Serves `body` as is, with that content type, at `path` (an empty 200, an HTML page) and returns its URL. */
  putRaw(path: string, contentType: string, body: string): string;
  /** How many GETs a URL received. */
  gets(url: string): number;
  close(): Promise<void>;
}

/**
 * A remote ZGW registry on 127.0.0.1 (a Catalogi API, a Documenten API, ...) that answers GET with the
 * JSON stored at the path, 404 otherwise: the real HTTP the registry's look-ups go through.
 */
export async function startResourceServer(): Promise<ResourceServer> {
  const state: ResourceServer = {
    origin: '',
    host: '',
    resources: new Map(),
    requests: [],
    put(path, value) {
      state.resources.set(path, value);
      return state.origin + path;
    },
    putRaw(path, contentType, body) {
      state.resources.set(path, new RawBody(contentType, body));
      return state.origin + path;
    },
    gets: (url) => state.requests.filter((r) => r.method === 'GET' && state.origin + r.path === url).length,
    close: () => stop(server),
  };
  const { server, origin } = await listen(async (req, res) => {
    const { method, path } = await record(req, state.requests);
    if (method !== 'GET' || !state.resources.has(path)) return answer(res, 404, { detail: 'Niet gevonden.' });
    const value = state.resources.get(path);
    if (value instanceof RawBody) {
      res.writeHead(200, { 'content-type': value.contentType });
      return res.end(value.body);
    }
    answer(res, 200, value);
  });
  state.origin = origin;
  state.host = new URL(origin).host;
  return state;
}
