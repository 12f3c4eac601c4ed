import { readFileSync } from 'node:fs';
import { archive } from '../plugins/archive/index.js';
import { caching, type CachingOptions } from '../plugins/caching/index.js';
import { expand } from '../plugins/expand/index.js';
import { geoCrs, type GeoCrsOptions } from '../plugins/geo-crs/index.js';
import { notifications, type NotificationsOptions } from '../plugins/notifications/index.js';
import { registrySync } from '../plugins/registry-sync/index.js';
import { signing, type SigningOptions } from '../plugins/signing/index.js';
import { zrcRules } from '../plugins/zrc-rules/index.js';
import { oauth, type OauthOptions } from '../plugins/oauth/index.js';
import type { AuthorizationSource } from './auth/types.js';
import type { Plugin } from './plugin.js';

/** `standard`: the registry as the Zaken API standard describes it (zrc-rules, archive, registry-sync, caching, expand, geo-crs); `none`: the bare core. */
export type PresetName = 'standard' | 'none';

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

/** The built-in plugins by name, with whether the `standard` preset includes them. */
const BUILT_IN: Record<string, { create(options: object | undefined, context: PluginContext): Plugin; standard: boolean }> = {
  'zrc-rules': { create: (options) => zrcRules(options), standard: true },
  archive: { create: () => archive(), standard: true },
  'registry-sync': { create: (options) => registrySync(options), standard: true },
  caching: { create: (options) => caching(options as CachingOptions), standard: true },
  expand: { create: () => expand(), standard: true },
  // zaakgeometrie, its CRS negotiation and bbox search are part of the Zaken API contract.
  'geo-crs': { create: (options) => geoCrs(options as GeoCrsOptions), standard: true },
  // Needs the Notificaties API's URL: only when configured.
  notifications: { create: (options, context) => notifications({ ...(options as NotificationsOptions), ...(context.migrating ? { registerKanaal: false } : {}) }), standard: false },
  // Needs the issuers and this registry's audience: only when configured.
  oauth: { create: oauthFromConfig, standard: false },
  // Needs keys; last, so its signature covers what the other plugins made of a response.
  signing: { create: (options) => signing(options as SigningOptions), standard: false },
};

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
