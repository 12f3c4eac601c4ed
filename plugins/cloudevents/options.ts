import { checkOptions, optionsSchema, type JsonSchema, type RemoteCredentials } from '../../src/plugin-api.js';

/** The event families: Open Zaak's (Mijn Overheid) and one event per classic notification. */
export const PROFILES = ['mijn-overheid', 'nrc'] as const;
export type Profile = (typeof PROFILES)[number];

/** How a sink authenticates the registry: a fixed bearer token, OAuth2 client credentials, or a ZGW JWT. */
export type SinkAuth =
  | { bearer: string }
  | { oauth2: { tokenUrl: string; clientId: string; secret: string; scope?: string } }
  | RemoteCredentials;

export interface SinkOptions {
  /** Stable: part of each delivery's ordering key and of the metrics' labels. */
  id: string;
  /** `webhook`: POST each event to `url`; `notificaties`: POST it to `{url}/cloudevents` (Open Notificaties). Default webhook. */
  mode?: 'webhook' | 'notificaties';
  url: string;
  /** Default `structured` (the NL GOV guideline); `binary` puts the attributes in `ce-*` headers (webhook only). */
  contentMode?: 'structured' | 'binary';
  /** Event types sent to it: exact, or a prefix ending in `*`; default all. */
  types?: string[];
  /** Only events whose `data` has one of these values for every key given; a key missing from `data` matches nothing. */
  filters?: Record<string, string | string[]>;
  auth?: SinkAuth;
  /** Per delivery call, default 5000 ms. */
  timeoutMs?: number;
}

export interface CloudEventsOptions {
  /** The `source` of every event: a URN naming the organisation and the system, `urn:nld:oin:<OIN>:systeem:<naam>`. */
  source: string;
  /** The event families to emit; default `mijn-overheid`. */
  profile?: Profile | Profile[];
  sinks: SinkOptions[];
  /** `dataref`: the zaak's absolute URL (default), or its path as Open Zaak sends it. */
  dataref?: 'absolute' | 'path';
  /** The zaak's `laatstGeopend` (writable) and `laatstGemuteerd` (read-only); needed for `zaak-geopend`. Default false. */
  laatstGeopend?: boolean;
  /** Records whose changes also give `zaak-gemuteerd` (Open Zaak: none of these), e.g. `rol`, `zaakeigenschap`. */
  mijnOverheidExtraResources?: string[];
}

const credentialsSchema = (description: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['clientId', 'secret'],
  description,
  properties: {
    clientId: { type: 'string', minLength: 1, description: 'The client id (iss and client_id of the token).' },
    secret: { type: 'string', minLength: 1, description: 'The secret the token is signed with (HS256).' },
  },
});

const sinkSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'url'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,40}$', description: 'Stable name of the sink: in ordering keys, metrics and log lines.' },
    mode: { enum: ['webhook', 'notificaties'], description: 'webhook: POST to url; notificaties: POST to {url}/cloudevents of Open Notificaties (default webhook).' },
    url: { type: 'string', format: 'uri', pattern: '^https?://', description: 'The webhook, or the Notificaties API base URL. Its host is allowed implicitly.' },
    contentMode: { enum: ['structured', 'binary'], description: 'structured (default): application/cloudevents+json; binary: data as the body, attributes in ce-* headers.' },
    types: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Event types sent: exact, or a prefix ending in * (default all).' },
    filters: {
      type: 'object',
      additionalProperties: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      description: 'Only events whose data has one of these values for every key (e.g. zaaktype); a key missing from data matches nothing.',
    },
    auth: {
      description: 'How the sink authenticates the registry: { bearer }, { oauth2: { tokenUrl, clientId, secret, scope } } or a ZGW JWT { clientId, secret }.',
      oneOf: [
        { type: 'object', additionalProperties: false, required: ['bearer'], properties: { bearer: { type: 'string', minLength: 1, description: 'A fixed bearer token.' } } },
        {
          type: 'object',
          additionalProperties: false,
          required: ['oauth2'],
          properties: {
            oauth2: {
              type: 'object',
              additionalProperties: false,
              required: ['tokenUrl', 'clientId', 'secret'],
              description: 'OAuth2 client credentials: the token is fetched from tokenUrl and reused until 30 s before it expires.',
              properties: {
                tokenUrl: { type: 'string', format: 'uri', pattern: '^https?://', description: 'The token endpoint; its host is allowed implicitly.' },
                clientId: { type: 'string', minLength: 1, description: 'The client id.' },
                secret: { type: 'string', minLength: 1, description: 'The client secret.' },
                scope: { type: 'string', description: 'The scope asked for.' },
              },
            },
          },
        },
        credentialsSchema('A ZGW JWT (HS256) signed with this client id and secret.'),
      ],
    },
    timeoutMs: { type: 'integer', minimum: 1, description: 'Per delivery call (default 5000).' },
  },
};

/** The options' JSON Schema: checked when the plugin is made, and the config file's `plugins.cloudevents`. */
export const cloudEventsOptionsSchema = optionsSchema<CloudEventsOptions>(
  {
    source: { type: 'string', minLength: 1, description: 'The source of every event, e.g. urn:nld:oin:00000001823288444000:systeem:zaakregister.' },
    profile: {
      description: 'Event families: mijn-overheid (Open Zaak\'s zaak events) and/or nrc (one event per classic notification); default mijn-overheid.',
      oneOf: [{ enum: [...PROFILES] }, { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...PROFILES] } }],
    },
    sinks: { type: 'array', minItems: 1, items: sinkSchema, description: 'Where events go: one outbox delivery per event and matching sink.' },
    dataref: { enum: ['absolute', 'path'], description: 'dataref: the zaak\'s absolute URL (default) or its path (as Open Zaak).' },
    laatstGeopend: { type: 'boolean', description: 'The zaak fields laatstGeopend and laatstGemuteerd; a PATCH of only laatstGeopend gives zaak-geopend (default false).' },
    mijnOverheidExtraResources: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'Records whose changes also give zaak-gemuteerd (e.g. rol).' },
  },
  { description: 'CloudEvents (NL GOV profile) of the zaken, from the transactional outbox, to webhooks or Open Notificaties (plugins/cloudevents/README.md).', required: ['source', 'sinks'] },
);

/** Checks the options: the schema, then what it cannot say (unique sink ids, binary mode only to a webhook). */
export function checkCloudEventsOptions(options: CloudEventsOptions): void {
  checkOptions('cloudevents', cloudEventsOptionsSchema, options);
  const problems: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  options.sinks.forEach((sink, i) => {
    if (seen.has(sink.id)) problems.push({ path: `/sinks/${i}/id`, message: `must be unique: "${sink.id}" names another sink` });
    seen.add(sink.id);
    if (sink.mode === 'notificaties' && sink.contentMode === 'binary') problems.push({ path: `/sinks/${i}/contentMode`, message: 'must be structured for a notificaties sink (Open Notificaties takes application/cloudevents+json)' });
  });
  if (problems.length) checkOptions('cloudevents', cloudEventsOptionsSchema, options, problems);
}

export const profilesOf = (options: CloudEventsOptions): Set<Profile> =>
  new Set(options.profile === undefined ? ['mijn-overheid'] : Array.isArray(options.profile) ? options.profile : [options.profile]);
