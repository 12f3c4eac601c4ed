// The core's path to the operation types; they are defined in the leaf `plugin-types.ts`.
import type { OperationId } from './operation-ids.js';
import type { Operation } from './plugin-types.js';

export type { Operation, QueryParameter, JsonSchema, HttpMethod, Exact } from './plugin-types.js';

/**
 * The operation of the responses the router gives without one: an unknown path, a method the path
 * does not have, a body that cannot be read. `onResponse` hooks see it (a signature covers these too).
 */
export const UNROUTED: Operation = Object.freeze({
  id: 'unrouted',
  method: 'get',
  path: '',
  action: 'unrouted',
  write: false,
  authenticated: false,
  documented: false,
  execute: async () => {},
  openapi: { summary: '', successStatus: 200 },
});

/** An operation of the core: its id is one of `OPERATION_IDS`, which the compiler checks. */
export type CoreOperation = Operation & { id: OperationId };
