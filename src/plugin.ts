// The core's path to the plugin types; they are defined in the leaf `plugin-types.ts`.
export type * from './plugin-types.js';
