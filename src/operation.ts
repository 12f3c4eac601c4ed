// The core's path to the operation types; they are defined in the leaf `plugin-types.ts`.
export type { Operation, QueryParameter, JsonSchema, HttpMethod } from './plugin-types.js';
