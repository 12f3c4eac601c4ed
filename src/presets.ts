import { archive } from '../plugins/archive/index.js';
import { caching, type CachingOptions } from '../plugins/caching/index.js';
import { expand } from '../plugins/expand/index.js';
import { geoCrs, type GeoCrsOptions } from '../plugins/geo-crs/index.js';
import { notifications, type NotificationsOptions } from '../plugins/notifications/index.js';
import { registrySync } from '../plugins/registry-sync/index.js';
import { zrcRules } from '../plugins/zrc-rules/index.js';
import type { Plugin } from './plugin.js';

/** `standard`: the registry as the Zaken API standard describes it (zrc-rules, archive, registry-sync, caching, expand, geo-crs); `none`: the bare core. */
export type PresetName = 'standard' | 'none';

/** The built-in plugins by name, with whether the `standard` preset includes them. */
const BUILT_IN: Record<string, { create(options?: object): Plugin; standard: boolean }> = {
  'zrc-rules': { create: (options) => zrcRules(options), standard: true },
  archive: { create: () => archive(), standard: true },
  'registry-sync': { create: (options) => registrySync(options), standard: true },
  caching: { create: (options) => caching(options as CachingOptions), standard: true },
  expand: { create: () => expand(), standard: true },
  // zaakgeometrie, its CRS negotiation and bbox search are part of the Zaken API contract.
  'geo-crs': { create: (options) => geoCrs(options as GeoCrsOptions), standard: true },
  // Needs the Notificaties API's URL: only when configured.
  notifications: { create: (options) => notifications(options as NotificationsOptions), standard: false },
};

export function presetPlugins(preset: PresetName): Plugin[] {
  return preset === 'standard' ? Object.values(BUILT_IN).filter((p) => p.standard).map((p) => p.create()) : [];
}

/**
 * The built-in plugins a config file asks for (`"plugins": { "zrc-rules": { ... } }`), on top of the
 * standard preset: an options object configures one, `true` enables it, `false` leaves it out.
 */
export function configuredPlugins(config: Record<string, boolean | object> = {}): Plugin[] {
  return Object.entries(BUILT_IN)
    .map(([name, plugin]) => [plugin, config[name] ?? plugin.standard] as const)
    .filter(([, setting]) => setting !== false)
    .map(([plugin, setting]) => plugin.create(typeof setting === 'object' ? setting : undefined));
}
