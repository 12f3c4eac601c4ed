import { checkOptions, optionsSchema, deliveryFailure, isPublishedOnKanaalZaken, KANAAL_ZAKEN_KENMERKEN as KENMERKEN, type ChangeAction, type OutboxDelivery, type Plugin, type RegistryServices, type RemoteClient, type RemoteCredentials, type ResourceChange } from '../../src/plugin-api.js';

export interface NotificationsOptions {
  /** Base URL of the Notificaties API, e.g. `https://notificaties.example.nl/api/v1`. */
  url: string;
  /** Credentials for the ZGW JWT the registry sends it. */
  auth?: RemoteCredentials;
  /** Default `zaken`. */
  kanaal?: string;
  /** Make sure the kanaal exists (default true): at start, and before the first notification is sent. */
  registerKanaal?: boolean;
  /** `documentatieLink` of a kanaal this registry registers. */
  documentatieLink?: string;
  /** Per call to the Notificaties API, default 5000 ms. */
  timeoutMs?: number;
}

/** The options' JSON Schema: checked when the plugin is made, and the config file's `plugins.notifications`. */
export const notificationsOptionsSchema = optionsSchema<NotificationsOptions>({
  url: { type: 'string', format: 'uri', pattern: '^https?://', description: 'Notificaties API base URL.' },
  kanaal: { type: 'string', minLength: 1, description: 'The kanaal published on (default zaken).' },
  registerKanaal: { type: 'boolean', description: 'Make sure the kanaal exists (default true): at start, and before the first notification is sent.' },
  documentatieLink: { type: 'string', description: 'documentatieLink of a kanaal this registry registers.' },
  timeoutMs: { type: 'integer', minimum: 1, description: 'Per call to the Notificaties API (default 5000).' },
  auth: {
    type: 'object',
    additionalProperties: false,
    required: ['clientId', 'secret'],
    description: 'Client id and secret of the ZGW JWT the registry sends the Notificaties API.',
    properties: {
      clientId: { type: 'string', minLength: 1, description: 'The client id (iss and client_id of the token).' },
      secret: { type: 'string', minLength: 1, description: 'The secret the token is signed with (HS256).' },
    },
  },
}, { description: 'The Notificaties API to publish to (kanaal zaken).', required: ['url'] });

const KIND = 'notifications';

/** The notification of one change, as the Notificaties API takes it. */
export function notificationOf(change: ResourceChange, kanaal: string): Record<string, unknown> {
  return {
    kanaal,
    hoofdObject: change.hoofdObject,
    resource: change.resource,
    resourceUrl: change.resourceUrl,
    actie: change.action satisfies ChangeAction,
    aanmaakdatum: new Date().toISOString(),
    kenmerken: Object.fromEntries(KENMERKEN.map((k) => [k, String(change.zaak[k] ?? '')])),
  };
}

/**
 * Publishes the registry's changes on kanaal `zaken` of a Notificaties API. Each notification is
 * enqueued in the transaction of its change and sent after commit by the outbox, in order per zaak;
 * a rolled-back change sends nothing, a committed one is sent even when the Notificaties API is down.
 */
export function notifications(options: NotificationsOptions): Plugin {
  checkOptions('notifications', notificationsOptionsSchema, options);
  const base = options.url.replace(/\/+$/, '');
  const kanaal = options.kanaal ?? 'zaken';
  const target = new URL(base).host;
  // Made at setup, by the registry: its calls then carry request ids and count in the fetch metrics.
  let nrc: RemoteClient;
  let services: RegistryServices;
  let kanaalReady: Promise<void> | undefined;

  async function registerKanaal(signal?: AbortSignal): Promise<void> {
    const found = await nrc.getJson<{ naam?: string }[]>(`${base}/kanaal?naam=${encodeURIComponent(kanaal)}`, { signal });
    if (Array.isArray(found) && found.some((k) => k.naam === kanaal)) return;
    await nrc.sendJson('POST', `${base}/kanaal`, { naam: kanaal, documentatieLink: options.documentatieLink ?? '', filters: [...KENMERKEN] }, { signal });
    services.log.info(`notifications: registered kanaal "${kanaal}" at ${base}`);
  }

  /** Once per process when it works; tried again on the next delivery when it did not. */
  function ensureKanaal(signal?: AbortSignal): Promise<void> {
    kanaalReady ??= registerKanaal(signal).catch((error: unknown) => {
      kanaalReady = undefined;
      throw error;
    });
    return kanaalReady;
  }

  async function deliver({ payload, signal }: OutboxDelivery): Promise<void> {
    try {
      if (options.registerKanaal !== false) await ensureKanaal(signal);
      await nrc.sendJson('POST', `${base}/notificaties`, payload, { signal });
    } catch (error) {
      throw deliveryFailure(error);
    }
  }

  return {
    name: 'notifications',
    setup(api) {
      services = api.registry;
      nrc = services.remoteClient({ allowedHosts: [target], timeoutMs: options.timeoutMs, credentials: options.auth ? { [target]: options.auth } : undefined });
      api.addDeliveryHandler(KIND, deliver);
      if (options.registerKanaal !== false) {
        // At start, without holding it up; the first delivery tries again if the Notificaties API is not there yet.
        ensureKanaal().catch((error: unknown) => services.log.warn(`notifications: cannot register kanaal "${kanaal}" yet: ${String((error as Error).message)}`));
      }
    },
    async resourceChanged(change) {
      // Imported zaken are history, not news: subscribers are told by the operator, as after a bulk import elsewhere.
      if (!isPublishedOnKanaalZaken(change)) return;
      await services.outbox.enqueue(change.tx, { kind: KIND, target, key: change.hoofdObject, payload: notificationOf(change, kanaal) });
    },
  };
}
