import { zrcRules } from '../plugins/zrc-rules/index.js';
import type { Plugin } from './plugin.js';

/** `standard`: the registry as the Zaken API standard describes it; `none`: the bare core. */
export type PresetName = 'standard' | 'none';

export function presetPlugins(preset: PresetName): Plugin[] {
  return preset === 'standard' ? [zrcRules()] : [];
}
