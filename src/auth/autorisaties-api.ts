import { createHash, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log.js';
import type { JsonSchema, Operation } from '../operation.js';
import type { Plugin, RequestContext } from '../plugin.js';
import { ProblemError } from '../problem.js';
import type { RemoteClient } from '../remote/fetch.js';
import { applicationProblems, checkApplications } from './static-source.js';
import type { Applicatie, AuthorizationSource } from './types.js';
import { isRecord } from '../is-record.js';

export interface AutorisatiesNotifications {
  /** The value of the Authorization header the Notificaties API must send to the webhook. */
  auth: string;
  /** Base URL of the Notificaties API; required to subscribe. */
  url?: string;
  /** Public URL of the webhook: `<baseUrl>/notificaties/autorisaties`; required to subscribe. */
  callbackUrl?: string;
  /** Subscribe to kanaal `autorisaties` at start (in the background, retried until it succeeds). */
  subscribe?: boolean;
  /** First wait before (re)trying the subscription, default 2 seconds; doubles up to 5 minutes. */
  retrySeconds?: number;
}

export interface AutorisatiesApiOptions {
  /** Base URL of the Autorisaties API, e.g. `https://autorisaties.example.nl/autorisaties/api/v1`. */
  url: string;
  /** Fetches with the allow-list, timeout, size cap and credentials (a ZGW JWT for that host). */
  remote: RemoteClient;
  /** How long an answer is used, default 300 seconds; 0 asks on every request. */
  ttlSeconds?: number;
  /** Receive the `autorisaties` notifications: a change takes effect on the next request. */
  notifications?: AutorisatiesNotifications;
}

/** Where the Notificaties API posts, relative to the registry's base URL. */
export const AUTORISATIES_WEBHOOK_PATH = '/notificaties/autorisaties';
const WEBHOOK_OPERATION = 'autorisaties_notificatie_ontvangen';
const KANAAL = 'autorisaties';
const MAX_RETRY_MS = 5 * 60_000;

const NOTIFICATIE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['kanaal', 'hoofdObject', 'resource', 'resourceUrl', 'actie', 'aanmaakdatum'],
  properties: {
    kanaal: { type: 'string', minLength: 1 },
    hoofdObject: { type: 'string', format: 'uri', minLength: 1 },
    resource: { type: 'string', minLength: 1 },
    resourceUrl: { type: 'string', format: 'uri', minLength: 1 },
    actie: { type: 'string', minLength: 1 },
    aanmaakdatum: { type: 'string', format: 'date-time' },
    kenmerken: { type: 'object' },
  },
};

interface Answer {
  application: Applicatie | undefined;
  fetchedAt: number;
}

interface Abonnement {
  url?: string;
  callbackUrl?: string;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Compares digests, so neither the content nor the length of the expected value leaks through timing. */
function sameSecret(given: string | undefined, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

function checkOptions(options: AutorisatiesApiOptions): void {
  if (!options.remote.isAllowed(options.url)) throw new Error(`autorisatiesApi: ${options.url} is not an allowed http(s) URL for the remote client`);
  if ((options.ttlSeconds ?? 0) < 0) throw new Error('autorisatiesApi: ttlSeconds must be 0 or more');
  const notifications = options.notifications;
  if (!notifications) return;
  if (!notifications.auth) throw new Error('autorisatiesApi: notifications.auth is required');
  if (!notifications.subscribe) return;
  if (!notifications.url || !notifications.callbackUrl) throw new Error('autorisatiesApi: notifications.url and callbackUrl are required to subscribe');
  if (!options.remote.isAllowed(notifications.url)) throw new Error(`autorisatiesApi: ${notifications.url} is not an allowed http(s) URL for the remote client`);
}

type Warn = (message: string, details?: Record<string, unknown>) => void;

/**
 * Real Autorisaties APIs list the autorisaties of every component, with `""` (Open Zaak) or `null`
 * (OneGround) for fields that do not apply. Keep the zrc ones with blanks as absent; a zrc autorisatie
 * that is still unusable is logged and skipped, so one odd entry never locks its client out.
 */
function zrcAutorisaties(application: unknown, warn: Warn): unknown {
  if (!isRecord(application) || !Array.isArray(application.autorisaties)) return application;
  const autorisaties = application.autorisaties
    .filter((autorisatie) => isRecord(autorisatie) && autorisatie.component === 'zrc')
    .map((autorisatie: Record<string, unknown>) => Object.fromEntries(Object.entries(autorisatie).filter(([, value]) => value !== '' && value !== null)))
    .filter((autorisatie) => {
      const problems = applicationProblems([{ ...application, autorisaties: [autorisatie] }], '/results').filter((p) => p.path.startsWith('/results/0/autorisaties/'));
      if (problems.length) warn('Autorisaties API: skipped an autorisatie this registry cannot use', { label: application.label, autorisatie, problems });
      return !problems.length;
    });
  return { ...application, autorisaties };
}

/** The application of a client id, following the pages (`next`) of the answer until it is found. */
async function applicationIn(remote: RemoteClient, url: string, clientId: string, warn: Warn): Promise<Applicatie | undefined> {
  for (let next: string | null | undefined = url, pages = 0; next && pages < 100; pages++) {
    const page: { results?: unknown; next?: string | null } | null = await remote.getJson(next);
    const results = page?.results;
    if (!Array.isArray(results)) throw new Error('the answer is not a page of applicaties');
    const match = results.find((a) => Array.isArray(a?.clientIds) && a.clientIds.includes(clientId));
    if (match !== undefined) return checkApplications([zrcAutorisaties(match, warn)], '/results')[0];
    next = page?.next;
  }
  return undefined;
}

/** Creates the abonnement on kanaal `autorisaties`, or updates the one with our callback URL; says which. */
async function subscribe(remote: RemoteClient, notifications: AutorisatiesNotifications): Promise<string> {
  const nrc = trimSlash(notifications.url!);
  const abonnement = { callbackUrl: notifications.callbackUrl, auth: notifications.auth, kanalen: [{ naam: KANAAL, filters: {} }] };
  const listed = await remote.getJson<unknown>(`${nrc}/abonnement`);
  const existing = ((Array.isArray(listed) ? listed : (listed as { results?: unknown[] }).results) ?? []) as Abonnement[];
  // A restart updates its own abonnement (the auth may have changed) rather than adding another.
  const own = existing.find((a) => a.callbackUrl === notifications.callbackUrl && typeof a.url === 'string');
  if (own) {
    await remote.sendJson('PUT', own.url!, abonnement);
    return `updated ${own.url}`;
  }
  await remote.sendJson('POST', `${nrc}/abonnement`, abonnement);
  return `created at ${nrc}`;
}

/**
 * Applications from the Autorisaties API (`GET /applicaties?clientIds=…`), cached per client id for
 * `ttlSeconds`; concurrent lookups share one request. Notifications on kanaal `autorisaties` (its
 * webhook is a plugin: `plugins()`) forget every cached answer. When the API cannot be reached, the
 * last answer for that client id is used; without one the request fails with 503.
 */
export function autorisatiesApi(options: AutorisatiesApiOptions): AuthorizationSource {
  checkOptions(options);
  const base = trimSlash(options.url);
  const ttlMs = (options.ttlSeconds ?? 300) * 1000;
  /** How old an answer may be to stand in while the API is down: an hour, or longer with a long TTL. */
  const maxStaleMs = Math.max(ttlMs * 4, 3600_000);
  const answers = new Map<string, Answer>();
  const loading = new Map<string, Promise<Applicatie | undefined>>();
  // Bumped by every invalidation: a request that was under way then must not store its (older) answer.
  let generation = 0;
  let log: Logger | undefined;
  let stopSubscribing: (() => void) | undefined;

  function unavailable(clientId: string, error: unknown): ProblemError {
    log?.error('Autorisaties API: cannot fetch the application', { clientId, url: base, error: (error as Error).message });
    return new ProblemError('authorizations-unavailable', {
      detail: 'De Autorisaties API is niet bereikbaar of gaf een onverwacht antwoord; probeer het later opnieuw.',
      cause: error,
    });
  }

  function load(clientId: string): Promise<Applicatie | undefined> {
    const started = generation;
    const request = applicationIn(options.remote, `${base}/applicaties?clientIds=${encodeURIComponent(clientId)}`, clientId, (message, details) => log?.warn(message, details))
      .then(
        (application) => {
          if (generation === started) answers.set(clientId, { application, fetchedAt: Date.now() });
          return application;
        },
        (error: unknown) => {
          // During an outage the last answer stands in, but not forever: a missed notification must not keep a revoked authorization alive.
          const last = answers.get(clientId);
          if (!last || Date.now() - last.fetchedAt > maxStaleMs) throw unavailable(clientId, error);
          log?.warn('Autorisaties API unreachable: using the last answer', { clientId, error: (error as Error).message });
          return last.application;
        },
      )
      .finally(() => {
        if (loading.get(clientId) === request) loading.delete(clientId);
      });
    loading.set(clientId, request);
    return request;
  }

  function invalidate(clientId?: string): void {
    generation += 1;
    if (clientId === undefined) {
      answers.clear();
      loading.clear();
    } else {
      answers.delete(clientId);
      loading.delete(clientId);
    }
  }

  /** Subscribes in the background: the Notificaties API may be down, or checks the callback before we listen. */
  function startSubscribing(notifications: AutorisatiesNotifications): () => void {
    const stop = new AbortController();
    let delay = (notifications.retrySeconds ?? 2) * 1000;
    void (async () => {
      for (;;) {
        try {
          await sleep(delay, undefined, { signal: stop.signal, ref: false });
        } catch {
          return;
        }
        try {
          const outcome = await subscribe(options.remote, notifications);
          if (!stop.signal.aborted) log?.info(`subscribed to kanaal ${KANAAL}: abonnement ${outcome}`);
          return;
        } catch (error) {
          delay = Math.min(delay * 2, MAX_RETRY_MS);
          if (!stop.signal.aborted) log?.warn(`cannot subscribe to kanaal ${KANAAL} yet; retrying in ${delay / 1000} s`, { error: (error as Error).message });
        }
      }
    })();
    return () => stop.abort();
  }

  function webhook(): Operation {
    return {
      id: WEBHOOK_OPERATION,
      method: 'post',
      path: AUTORISATIES_WEBHOOK_PATH,
      action: 'notify',
      write: false,
      // The Notificaties API sends the configured `auth` value, checked in `onRequest`: no client JWT here.
      authenticated: false,
      documented: false,
      requestBody: NOTIFICATIE_SCHEMA,
      async execute(ctx) {
        const body = ctx.body as { kanaal: string; actie: string; resourceUrl: string };
        if (body.kanaal === KANAAL) {
          invalidate();
          log?.info('autorisaties changed: cached applications forgotten', { actie: body.actie, resourceUrl: body.resourceUrl });
        }
        ctx.response.status = 204;
      },
      openapi: { summary: 'Notificaties van de Autorisaties API ontvangen.', successStatus: 204 },
    };
  }

  /** Before the body is parsed: a caller without the agreed header learns nothing, not even the schema. */
  function checkNotifier(ctx: RequestContext, notifications: AutorisatiesNotifications): void {
    if (ctx.operation.id !== WEBHOOK_OPERATION || sameSecret(ctx.req.headers.authorization, notifications.auth)) return;
    throw new ProblemError('permission_denied', { detail: 'De Authorization header is niet die van het abonnement.' });
  }

  const source: AuthorizationSource = {
    async applicationFor(clientId) {
      const answer = answers.get(clientId);
      if (answer && Date.now() - answer.fetchedAt < ttlMs) return answer.application;
      return loading.get(clientId) ?? load(clientId);
    },
    invalidate,
    plugins(): Plugin[] {
      const notifications = options.notifications;
      return [
        {
          name: 'autorisaties-api',
          setup(api) {
            log = api.registry.log;
            if (!notifications) return;
            api.addOperation(webhook());
            if (notifications.subscribe) stopSubscribing = startSubscribing(notifications);
          },
          onRequest: notifications && ((ctx) => checkNotifier(ctx, notifications)),
          close: () => source.close?.(),
        },
      ];
    },
    async close() {
      stopSubscribing?.();
    },
  };
  return source;
}
