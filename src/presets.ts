import { readFileSync } from 'node:fs';
import { archive } from '../plugins/archive/index.js';
import { cloudevents, cloudEventsOptionsSchema, type CloudEventsOptions } from '../plugins/cloudevents/index.js';
import { caching, cachingOptionsSchema, type CachingOptions } from '../plugins/caching/index.js';
import { expand, expandOptionsSchema, type ExpandOptions } from '../plugins/expand/index.js';
import { geoCrs, geoCrsOptionsSchema, type GeoCrsOptions } from '../plugins/geo-crs/index.js';
import { handelingen, handelingenOptionsSchema, type HandelingenOptions } from '../plugins/handelingen/index.js';
import { migration, migrationOptionsSchema, type MigrationOptions } from '../plugins/migration/index.js';
import { notifications, notificationsOptionsSchema, type NotificationsOptions } from '../plugins/notifications/index.js';
import { registrySync, registrySyncOptionsSchema } from '../plugins/registry-sync/index.js';
import { signing, type SigningOptions } from '../plugins/signing/index.js';
import { zrcRules, zrcRulesOptionsSchema } from '../plugins/zrc-rules/index.js';
import { oauth, oauthOptionsSchema, type OauthOptions } from '../plugins/oauth/index.js';
import type { AuthorizationSource } from './auth/types.js';
import type { JsonSchema } from './operation.js';
import type { Plugin } from './plugin.js';

/** `standard`: the registry as the Zaken API standard describes it (zrc-rules, archive, registry-sync, caching, expand, geo-crs); `none`: the bare core. */
export const PRESET_NAMES = ['standard', 'none'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** What some built-in plugins need from the rest of the configuration. */
export interface PluginContext {
  /** The applications (from `applications` or `autorisatiesApi`): the oauth plugin maps clients to them. */
  authorizations?: AuthorizationSource;
  /**
   * For commands that serve no API (`migrate`): no plugin reaches the network while it is set up
   * (the oauth plugin then documents a placeholder flow instead of reading its issuer's metadata).
   */
  offline?: boolean;
  /**
   * For `migrate`: the plugins are set up for their migrations alone, and none writes to another
   * service (the notifications plugin registers no kanaal; `serve` and `deliver` do at start).
   */
  migrating?: boolean;
}

/** The oauth plugin's options in the config file: files where the plugin takes their contents. */
type OauthConfig = Omit<OauthOptions, 'fetch' | 'authorizations' | 'introspection'> & {
  fetch?: { caFile?: string; timeoutMs?: number };
  introspection?: { issuer: string; clientId: string; privateKeyFile: string };
};

/** The oauth plugin from the config file's options: its files read, the applications of the configuration. */
function oauthFromConfig(options: object | undefined, context: PluginContext): Plugin {
  const { fetch, introspection, ...rest } = (options ?? {}) as OauthConfig;
  if (!context.authorizations) throw new Error('plugin oauth needs applications or autorisatiesApi: what each client may do');
  const ca = fetch?.caFile ? readFileSync(fetch.caFile) : undefined;
  return oauth({
    ...(context.offline && !rest.documentedFlow ? { documentedFlow: { authorizationUrl: `${rest.issuers[0]}/authorize`, tokenUrl: `${rest.issuers[0]}/token` } } : {}),
    ...rest,
    authorizations: context.authorizations,
    fetch: { ca, timeoutMs: fetch?.timeoutMs },
    introspection: introspection && { issuer: introspection.issuer, clientId: introspection.clientId, privateKey: JSON.parse(readFileSync(introspection.privateKeyFile, 'utf8')) },
  });
}

/** The oauth options of the config file: the plugin's schema with files in place of the key, CA and applications. */
function oauthFileSchema(): JsonSchema {
  const { authorizations: _applications, fetch, introspection, ...properties } = oauthOptionsSchema.properties as Record<string, JsonSchema>;
  const { ca: _ca, ...fetchProperties } = fetch.properties as Record<string, JsonSchema>;
  const file = { type: 'string', minLength: 1 };
  const { privateKey: _key, ...introspectionProperties } = introspection.properties as Record<string, JsonSchema>;
  return {
    ...oauthOptionsSchema,
    description: 'Accept access tokens of the NL GOV OAuth 2.0 profile (plugins/oauth/README.md); applications come from applications or autorisatiesApi.',
    required: ['issuers', 'audience'],
    properties: {
      ...properties,
      fetch: { ...fetch, properties: { caFile: { ...file, description: 'PEM file of extra CAs trusted for the authorization servers.' }, ...fetchProperties } },
      introspection: {
        ...introspection,
        required: ['issuer', 'clientId', 'privateKeyFile'],
        properties: { ...introspectionProperties, privateKeyFile: { ...file, description: 'JSON file with the private PS256 JWK of that client.' } },
      },
    },
  };
}

/**
 * The built-in plugins by name, with whether the `standard` preset includes them and the schema of
 * their options in the config file: the plugin's own options schema (`plugins.<name>` in config.schema.json).
 */
const BUILT_IN: Record<string, { create(options: object | undefined, context: PluginContext): Plugin; standard: boolean; fileSchema?: () => JsonSchema }> = {
  'zrc-rules': { create: (options) => zrcRules(options), standard: true, fileSchema: () => zrcRulesOptionsSchema },
  archive: { create: () => archive(), standard: true },
  'registry-sync': { create: (options) => registrySync(options), standard: true, fileSchema: () => registrySyncOptionsSchema },
  caching: { create: (options) => caching(options as CachingOptions), standard: true, fileSchema: () => cachingOptionsSchema },
  expand: { create: (options) => expand(options as ExpandOptions), standard: true, fileSchema: () => expandOptionsSchema },
  // zaakgeometrie, its CRS negotiation and bbox search are part of the Zaken API contract.
  'geo-crs': { create: (options) => geoCrs(options as GeoCrsOptions), standard: true, fileSchema: () => geoCrsOptionsSchema },
  // Needs the Notificaties API's URL: only when configured.
  notifications: {
    create: (options, context) => notifications({ ...(options as NotificationsOptions), ...(context.migrating ? { registerKanaal: false } : {}) }),
    standard: false,
    fileSchema: () => notificationsOptionsSchema,
  },
  // Needs a source and sinks: only when configured.
  cloudevents: { create: (options) => cloudevents(options as CloudEventsOptions), standard: false, fileSchema: () => cloudEventsOptionsSchema },
  // Experimental endpoints outside the standard: only when asked for.
  handelingen: { create: (options) => handelingen(options as HandelingenOptions), standard: false, fileSchema: () => handelingenOptionsSchema },
  // An admin API that writes history: only for the clients named in its options.
  migration: { create: (options) => migration(options as MigrationOptions), standard: false, fileSchema: () => migrationOptionsSchema },
  // Needs the issuers and this registry's audience: only when configured.
  oauth: { create: oauthFromConfig, standard: false, fileSchema: oauthFileSchema },
  // Needs keys; last, so its signature covers what the other plugins made of a response.
  signing: { create: (options) => signing(options as SigningOptions), standard: false },
};

/**
 * `plugins.<name>` of config.schema.json for the plugins whose options schema it takes: `false`
 * leaves one out, `true` enables one that needs no options, an object configures it.
 */
export function pluginFileSchemas(): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(BUILT_IN)
      .filter(([, plugin]) => plugin.fileSchema)
      .map(([name, plugin]) => {
        const schema = plugin.fileSchema!();
        const needsOptions = Array.isArray(schema.required) && schema.required.length > 0;
        return [name, { ...schema, type: ['boolean', 'object'], ...(needsOptions ? { not: { const: true } } : {}) }];
      }),
  );
}

export function presetPlugins(preset: PresetName): Plugin[] {
  return preset === 'standard' ? Object.values(BUILT_IN).filter((p) => p.standard).map((p) => p.create(undefined, {})) : [];
}

/**
 * The built-in plugins a config file asks for (`"plugins": { "zrc-rules": { ... } }`), on top of the
 * standard preset: an options object configures one, `true` enables it, `false` leaves it out.
 */
export function configuredPlugins(config: Record<string, boolean | object> = {}, context: PluginContext = {}): Plugin[] {
  return Object.entries(BUILT_IN)
    .map(([name, plugin]) => [plugin, config[name] ?? plugin.standard] as const)
    .filter(([, setting]) => setting !== false)
    .map(([plugin, setting]) => plugin.create(typeof setting === 'object' ? setting : undefined, context));
}
