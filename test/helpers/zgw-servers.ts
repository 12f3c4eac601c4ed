import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Router } from 'express';
import type { Applicatie } from '../../src/auth/types.js';
import type { Plugin } from '../../src/index.js';

/** One request a stand-in API received. */
export interface RecordedRequest {
  method: string;
  path: string;
  authorization?: string;
  body?: unknown;
}

async function listen(handler: RequestListener): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function stop(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function record(req: IncomingMessage, requests: RecordedRequest[]): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const entry: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body: text ? JSON.parse(text) : undefined };
  requests.push(entry);
  return entry;
}

function answer(res: ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
  res.end(body === undefined ? undefined : JSON.stringify(body));
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

export interface NotificatiesApiServer {
  /** Base URL, `http://127.0.0.1:<port>/notificaties/api/v1`. */
  url: string;
  abonnementen: Abonnement[];
  requests: RecordedRequest[];
  /** Answer every request with 503 while true. */
  down: boolean;
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

/**
 * A small Notificaties API on 127.0.0.1. Like Open Notificaties, it accepts an abonnement (POST, or
 * PUT on an existing one) only when a test notification to the callback with its auth answers 204.
 */
export async function startNotificatiesApi(): Promise<NotificatiesApiServer> {
  const path = '/notificaties/api/v1';
  const state: NotificatiesApiServer = {
    url: '',
    abonnementen: [],
    requests: [],
    down: false,
    async notify(kanaal, overrides) {
      const subscribed = state.abonnementen.filter((a) => a.kanalen.some((k) => k.naam === kanaal));
      return Promise.all(subscribed.map((a) => postNotification(a.callbackUrl, a.auth, notification(kanaal, overrides))));
    },
    close: () => stop(server),
  };
  const { server, origin } = await listen(async (req, res) => {
    const { method, body } = await record(req, state.requests);
    if (state.down) return answer(res, 503, { detail: 'onderhoud' });
    const pathname = new URL(req.url ?? '', origin).pathname;
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
  state.url = origin + path;
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

export interface ResourceServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  host: string;
  /** What it serves, by path: change an entry and the next GET sees the change. */
  resources: Map<string, unknown>;
  requests: RecordedRequest[];
  /** Serves `value` at `path` and returns its URL. */
  put(path: string, value: unknown): string;
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
    gets: (url) => state.requests.filter((r) => r.method === 'GET' && state.origin + r.path === url).length,
    close: () => stop(server),
  };
  const { server, origin } = await listen(async (req, res) => {
    const { method, path } = await record(req, state.requests);
    if (method !== 'GET' || !state.resources.has(path)) return answer(res, 404, { detail: 'Niet gevonden.' });
    answer(res, 200, state.resources.get(path));
  });
  state.origin = origin;
  state.host = new URL(origin).host;
  return state;
}
