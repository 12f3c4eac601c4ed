/**
 * The types a plugin sees, in a leaf of modules under `plugin-types/`, one per seam: the request
 * (operation, context, services), the hooks, the plugin and its set-up API, access, records, the
 * remote client, the outbox and the OpenAPI shapes. They import only types, and only from each other
 * and from modules that import nothing of the core themselves (the lifecycle list, the storage,
 * catalog and logger types), so the dependency direction stays core → resources → plugins
 * (`npm run lint:layers` checks it). The implementation modules import their public types from here
 * and re-export them.
 */
export type * from './plugin-types/access.js';
export type * from './plugin-types/hooks.js';
export type * from './plugin-types/migration.js';
export type * from './plugin-types/outbox.js';
export type * from './plugin-types/plugin.js';
export type * from './plugin-types/records.js';
export type * from './plugin-types/remote.js';
export type * from './plugin-types/request.js';
export type * from './plugin-types/schema.js';
