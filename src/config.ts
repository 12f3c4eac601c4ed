import { readFileSync } from 'node:fs';
import path from 'node:path';
import { applicationProblems } from './auth/static-source.js';
import type { Applicatie } from './auth/types.js';
import type { JsonSchema } from './operation.js';
import type { DispatcherOptions } from './outbox/index.js';
import type { InvalidParam } from './problem.js';
import { validate } from './schema/validate.js';

/** The CLI's JSON configuration file; README documents every key. */
export interface CliConfig {
  port?: number;
  host?: string;
  baseUrl?: string;
  database?: string;
  development?: boolean;
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  allowedHosts?: string[];
  remote?: { timeoutMs?: number; maxBytes?: number; credentials?: Record<string, { clientId: string; secret: string }> };
  catalog?: { type: 'http' } | { type: 'static'; file: string };
  /** The secret of each client id that may call the registry (ZGW JWT, HS256). */
  clients?: Record<string, string>;
  /** The applications, when they are not fetched from an Autorisaties API. */
  applications?: Applicatie[];
  autorisatiesApi?: {
    url: string;
    ttlSeconds?: number;
    notifications?: { auth: string; url?: string; callbackUrl?: string; subscribe?: boolean };
  };
  jwt?: { leewaySeconds?: number; maxAgeSeconds?: number };
  /** Built-in plugins: options to configure one, `false` to leave a standard one out. */
  plugins?: Record<string, boolean | object>;
  /** The outbox dispatcher's settings (retries, timeouts, concurrency). */
  outbox?: DispatcherOptions;
}

const configSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    host: { type: 'string' },
    baseUrl: { type: 'string', format: 'uri', minLength: 1 },
    database: { type: 'string', minLength: 1 },
    development: { type: 'boolean' },
    logLevel: { type: 'string', enum: ['debug', 'info', 'warn', 'error', 'silent'] },
    allowedHosts: { type: 'array', items: { type: 'string', minLength: 1 } },
    remote: {
      type: 'object',
      additionalProperties: false,
      properties: {
        timeoutMs: { type: 'integer', minimum: 1 },
        maxBytes: { type: 'integer', minimum: 1 },
        credentials: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            additionalProperties: false,
            required: ['clientId', 'secret'],
            properties: { clientId: { type: 'string', minLength: 1 }, secret: { type: 'string', minLength: 1 } },
          },
        },
      },
    },
    catalog: {
      type: 'object',
      additionalProperties: false,
      required: ['type'],
      properties: { type: { type: 'string', enum: ['http', 'static'] }, file: { type: 'string', minLength: 1 } },
    },
    clients: { type: 'object', additionalProperties: { type: 'string', minLength: 1 } },
    // Each application is checked by applicationProblems (the Autorisaties API's own shape).
    applications: { type: 'array' },
    autorisatiesApi: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: { type: 'string', format: 'uri', minLength: 1 },
        ttlSeconds: { type: 'integer', minimum: 0 },
        notifications: {
          type: 'object',
          additionalProperties: false,
          required: ['auth'],
          properties: {
            auth: { type: 'string', minLength: 1 },
            url: { type: 'string', format: 'uri', minLength: 1 },
            callbackUrl: { type: 'string', format: 'uri', minLength: 1 },
            subscribe: { type: 'boolean' },
          },
        },
      },
    },
    jwt: {
      type: 'object',
      additionalProperties: false,
      properties: { leewaySeconds: { type: 'integer', minimum: 0 }, maxAgeSeconds: { type: 'integer', minimum: 1 } },
    },
    plugins: {
      type: 'object',
      additionalProperties: false,
      properties: {
        'zrc-rules': {
          oneOf: [
            { type: 'boolean' },
            { type: 'object', additionalProperties: false, properties: { referenceCacheTtlMs: { type: 'integer', minimum: 0 } } },
          ],
        },
        archive: { type: 'boolean' },
        expand: { type: 'boolean' },
        caching: {
          oneOf: [
            { type: 'boolean' },
            {
              type: 'object',
              additionalProperties: false,
              properties: { maxEntries: { type: 'integer', minimum: 1 }, vary: { type: 'array', items: { type: 'string', minLength: 1 } } },
            },
          ],
        },
        'registry-sync': {
          oneOf: [
            { type: 'boolean' },
            {
              type: 'object',
              additionalProperties: false,
              properties: { relations: { type: 'array', items: { enum: ['zaakinformatieobject', 'zaakverzoek', 'zaakcontactmoment'] } } },
            },
          ],
        },
        notifications: {
          oneOf: [
            { const: false },
            {
              type: 'object',
              additionalProperties: false,
              required: ['url'],
              properties: {
                url: { type: 'string', format: 'uri' },
                kanaal: { type: 'string', minLength: 1 },
                registerKanaal: { type: 'boolean' },
                documentatieLink: { type: 'string' },
                timeoutMs: { type: 'integer', minimum: 1 },
                auth: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['clientId', 'secret'],
                  properties: { clientId: { type: 'string', minLength: 1 }, secret: { type: 'string', minLength: 1 } },
                },
              },
            },
          ],
        },
      },
    },
    outbox: {
      type: 'object',
      additionalProperties: false,
      properties: {
        dispatch: { type: 'boolean' },
        pollIntervalMs: { type: 'integer', minimum: 10 },
        concurrency: { type: 'integer', minimum: 1 },
        perTargetConcurrency: { type: 'integer', minimum: 1 },
        timeoutMs: { type: 'integer', minimum: 1 },
        maxAttempts: { type: 'integer', minimum: 1 },
        maxAgeMs: { type: 'integer', minimum: 1 },
        backoffBaseMs: { type: 'integer', minimum: 1 },
        backoffMaxMs: { type: 'integer', minimum: 1 },
        leaseMs: { type: 'integer', minimum: 1 },
      },
    },
  },
};

/** The authentication keys' rules that the schema cannot say. */
function authenticationProblems(config: CliConfig): InvalidParam[] {
  const problems: InvalidParam[] = [];
  if (config.applications && config.autorisatiesApi) {
    problems.push({ name: 'applications', code: 'invalid', reason: 'Kies applications of autorisatiesApi, niet beide.' });
  }
  if (config.applications) problems.push(...applicationProblems(config.applications));
  const notifications = config.autorisatiesApi?.notifications;
  if (notifications?.subscribe) {
    for (const key of ['url', 'callbackUrl'] as const) {
      if (!notifications[key]) problems.push({ name: `autorisatiesApi.notifications.${key}`, code: 'required', reason: 'Nodig om te abonneren (subscribe).' });
    }
  }
  return problems;
}

export const DEFAULT_DATABASE = '.zaakregister-data';
export const DEFAULT_PORT = 8000;

/** Reads and checks a config file (relative paths in it are relative to the file). Throws with every problem listed. */
export function loadConfig(file?: string, env: NodeJS.ProcessEnv = process.env): CliConfig {
  let config: CliConfig = {};
  if (file) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`cannot read config ${file}: ${(error as Error).message}`);
    }
    const invalid = validate(configSchema, raw);
    const problems = invalid.length ? invalid : authenticationProblems(raw as CliConfig);
    if (problems.length) throw new Error(`invalid config ${file}:\n${problems.map((p) => `  - ${p.name}: ${p.reason} (${p.code})`).join('\n')}`);
    config = raw as CliConfig;
    if (config.catalog?.type === 'static') {
      if (!config.catalog.file) throw new Error(`invalid config ${file}:\n  - catalog.file: required for a static catalog`);
      config.catalog.file = path.resolve(path.dirname(file), config.catalog.file);
    }
    if (config.database && config.database !== 'memory' && !/^postgres(ql)?:\/\//i.test(config.database)) {
      config.database = path.resolve(path.dirname(file), config.database);
    }
  }
  if (env.PORT) config.port = Number(env.PORT);
  if (env.DATABASE_URL) config.database = env.DATABASE_URL;
  return config;
}
