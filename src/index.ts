export { createRegistry, ZAKEN_API_VERSION, type Registry, type RegistryOptions } from './registry.js';
export type { PresetName } from './presets.js';
export * from './plugin-api.js';
export { zrcRules, type ZrcRulesOptions } from '../plugins/zrc-rules/index.js';
export { archive } from '../plugins/archive/index.js';
