import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonSchema } from './operation.js';
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
  },
};

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
    const problems = validate(configSchema, raw);
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
