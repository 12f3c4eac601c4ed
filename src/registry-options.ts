import configSchema from '../config.schema.json' with { type: 'json' };
import { secretProblems } from './auth/secrets.js';
import type { AuthOptions } from './auth/index.js';
import type { OpenApiInfo } from './openapi/build.js';
import type { Exact, JsonSchema } from './operation.js';
import { checkOptions } from './options.js';
import { PRESET_NAMES } from './presets.js';
import { settingsProblems, type SettingsProblem } from './schema/settings.js';
import { databaseStringProblem } from './storage/index.js';
import { isRecord } from './is-record.js';

const fileSettings = configSchema.properties;
const object = { type: 'object' };

const text = { type: 'string' };
const INFO_PROPERTIES = {
  version: { ...text, description: "The API's semantic version (default the Zaken API version implemented)." },
  title: { ...text, description: "The document's title (default Zaken API)." },
  description: { ...text, description: "The document's description." },
  contact: {
    type: 'object',
    additionalProperties: false,
    description: 'Who to contact about the API.',
    properties: { name: text, email: text, url: text },
  },
};

const REGISTRY_PROPERTIES = {
  baseUrl: fileSettings.baseUrl,
  storage: {},
  catalog: object,
  remote: {
    type: 'object',
    additionalProperties: false,
    properties: { allowedHosts: fileSettings.allowedHosts, ...fileSettings.remote.properties, onExchange: {} },
  },
  authorization: {},
  preset: { enum: PRESET_NAMES },
  plugins: { type: 'array' },
  logger: object,
  drainTimeoutMs: fileSettings.drainTimeoutMs,
  drainGraceMs: fileSettings.drainGraceMs,
  migrate: { type: 'boolean' },
  info: { type: 'object', additionalProperties: false, properties: INFO_PROPERTIES },
  outbox: fileSettings.outbox,
  strictNulls: fileSettings.strictNulls,
};

/**
 * `createRegistry`'s options: the settings it shares with the config file take their schema from
 * config.schema.json; values only code can pass (a storage, a catalog, plugins, a logger) are
 * checked by what they must be.
 */
const REGISTRY_OPTIONS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: REGISTRY_PROPERTIES,
  // Where the shared settings' references (remote credentials) lead.
  definitions: configSchema.definitions,
};

const AUTH_PROPERTIES = { clients: {}, ...fileSettings.jwt.properties, source: object, allowWeakSecrets: fileSettings.allowWeakSecrets };

/** ZGW authentication from code: the config file's `jwt` settings, the secrets, and where applications come from. */
const AUTH_OPTIONS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['source'],
  properties: AUTH_PROPERTIES,
};

/** The names the schema of `createRegistry`'s options allows: registry.ts checks them against `RegistryOptions`. */
export type RegistryOptionName = keyof typeof REGISTRY_PROPERTIES;

// The compiler checks that the schemas name exactly the keys of AuthOptions and OpenApiInfo.
const authSchemaMatches: Exact<keyof typeof AUTH_PROPERTIES, keyof AuthOptions> = true;
const infoSchemaMatches: Exact<keyof typeof INFO_PROPERTIES, keyof OpenApiInfo> = true;
void [authSchemaMatches, infoSchemaMatches];

const isThenable = (value: unknown) => isRecord(value) && typeof value.then === 'function';

function storageProblems(storage: unknown): SettingsProblem[] {
  const path = '/storage';
  if (storage === undefined || isThenable(storage)) return [];
  if (typeof storage === 'string') {
    const problem = databaseStringProblem(storage);
    return problem ? [{ path, message: problem }] : [];
  }
  if (typeof storage === 'function') return [{ path, message: `is the function ${storage.name || '(anonymous)'}: call it, e.g. postgresStorage({ connection }) or pgliteStorage({ dataDir })` }];
  if (!isRecord(storage) || !('knex' in storage) || typeof storage.migrate !== 'function') {
    return [{ path, message: 'is no storage: pass pgliteStorage(...), postgresStorage(...) or a database string (memory, a directory, a postgres:// URL)' }];
  }
  return [];
}

/**
 * Every plugin must be a plugin object; its factory (`zrcRules` instead of `zrcRules()`) is the usual
 * slip. A list of plugins (what `authenticationPlugins` returns) may stand in the list, one level deep.
 */
function pluginProblems(plugins: unknown): SettingsProblem[] {
  if (!Array.isArray(plugins)) return [];
  const problems: SettingsProblem[] = [];
  const visit = (value: unknown, path: string, nested: boolean) => {
    if (Array.isArray(value) && nested) problems.push({ path, message: 'is a list inside a list of plugins: plugins takes plugins and lists of plugins, one level deep' });
    else if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${path}/${index}`, true));
    else if (typeof value === 'function') problems.push({ path, message: `is the function ${value.name || '(anonymous)'}, not a plugin: call it (${value.name || 'factory'}())` });
    else if (!isRecord(value) || typeof value.name !== 'string' || !value.name) problems.push({ path, message: 'is no plugin: a plugin is an object with a name (what a plugin factory returns)' });
  };
  plugins.forEach((plugin, index) => visit(plugin, `/plugins/${index}`, false));
  return problems;
}

function authorizationProblems(authorization: unknown): SettingsProblem[] {
  const path = '/authorization';
  if (authorization === undefined || authorization === 'development') return [];
  if (!isRecord(authorization)) return [{ path, message: "must be 'development' or { source, clients, ... }" }];
  const problems: SettingsProblem[] = [];
  const clients = authorization.clients;
  if (isRecord(clients)) problems.push(...secretProblems(clients, `${path}/clients`, authorization.allowWeakSecrets === true));
  else if (clients !== undefined && typeof clients !== 'function') problems.push({ path: `${path}/clients`, message: 'must be { clientId: secret } or a function that looks a secret up' });
  return [...settingsProblems(AUTH_OPTIONS_SCHEMA, authorization, path), ...problems];
}

/** Throws an `OptionsError` naming every problem of `createRegistry`'s options at once. */
export function checkRegistryOptions(options: unknown): void {
  const given = isRecord(options) ? options : {};
  checkOptions('createRegistry', REGISTRY_OPTIONS_SCHEMA, options, [
    ...storageProblems(given.storage),
    ...pluginProblems(given.plugins),
    ...authorizationProblems(given.authorization),
  ]);
}
