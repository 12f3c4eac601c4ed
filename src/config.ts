import { readFileSync } from 'node:fs';
import path from 'node:path';
import configSchema from '../config.schema.json' with { type: 'json' };
import { secretProblems } from './auth/secrets.js';
import { configFileProblems } from './config-files.js';
import { applicationProblems } from './auth/static-source.js';
import type { Applicatie } from './auth/types.js';
import type { DispatcherOptions } from './outbox/index.js';
import { databaseStringProblem, isDatabaseDirectory } from './storage/index.js';
import { formatProblems, settingsProblems, type SettingsProblem } from './schema/settings.js';
import { isRecord } from './is-record.js';

/** The CLI's JSON configuration file; docs/configuration.md documents every key. */
export interface CliConfig {
  port?: number;
  /** Serve `/metrics` on this port only (metrics should not be public). */
  metricsPort?: number;
  host?: string;
  /** Serve HTTPS: PEM files of the certificate, its key and (mutual TLS) the client CAs. */
  tls?: { cert: string; key: string; clientCa?: string };
  baseUrl?: string;
  /** A string (`memory`, a directory, a postgres:// URL), or a PostgreSQL server with its options. */
  database?: string | PostgresDatabaseSettings;
  development?: boolean;
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  allowedHosts?: string[];
  remote?: { timeoutMs?: number; maxBytes?: number; credentials?: Record<string, { clientId: string; secret: string }> };
  catalog?: { type: 'http' } | { type: 'static'; file: string };
  /** The secret of each client id that may call the registry (ZGW JWT, HS256). */
  clients?: Record<string, string>;
  /** Accept client secrets shorter than 32 bytes (test environments); a warning at start. */
  allowWeakSecrets?: boolean;
  /** On shutdown, how long requests in flight may take (see `RegistryOptions.drainTimeoutMs`). */
  drainTimeoutMs?: number;
  /** On shutdown, how long new connections are still accepted (see `RegistryOptions.drainGraceMs`). */
  drainGraceMs?: number;
  /** Refuse `null` on optional, non-nullable fields (see `RegistryOptions.strictNulls`). */
  strictNulls?: boolean;
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

/** `"database"` as an object: the PostgreSQL server and how to talk to it. */
export interface PostgresDatabaseSettings {
  /** The postgres:// URL of the server that takes writes. */
  primary: string;
  /** false behind PgBouncer in transaction mode without `max_prepared_statements` (see `postgresStorage`). */
  preparedStatements?: boolean;
  /** postgres:// URLs of streaming replicas of the primary that serve safe reads (see `postgresStorage`). */
  replicas?: string[];
  /** A replica further behind the primary than this is skipped (default 1000). */
  maxReplicaLagMs?: number;
}

export const DEFAULT_DATABASE = '.zaakregister-data';

/** Where the database is: `"database"`'s string, or its `primary`. */
export const databaseLocation = (config: CliConfig): string => (typeof config.database === 'object' ? config.database.primary : (config.database ?? DEFAULT_DATABASE));

/** `location` (a flag's or the environment's) in place of the configured one, its options kept. */
export function locateDatabase(config: CliConfig, location: string): void {
  config.database = typeof config.database === 'object' && config.database ? { ...config.database, primary: location } : location;
}
export const DEFAULT_PORT = 8000;

/** A configuration that cannot be used; the message lists every problem. */
export class ConfigError extends Error {
  constructor(
    readonly source: string,
    readonly problems: SettingsProblem[],
  ) {
    super(`invalid configuration (${source}):\n${formatProblems(problems)}`);
    this.name = 'ConfigError';
  }
}

/** The rules across keys that the schema cannot say: authentication, secrets, subscriptions. */
function crossFieldProblems(config: CliConfig, serving: boolean): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  if (config.applications && config.autorisatiesApi) {
    problems.push({ path: '/applications', message: 'set applications or autorisatiesApi, not both' });
  }
  if (Array.isArray(config.applications)) problems.push(...applicationProblems(config.applications));
  const notifications = isRecord(config.autorisatiesApi) ? config.autorisatiesApi.notifications : undefined;
  if (isRecord(notifications) && notifications.subscribe) {
    for (const key of ['url', 'callbackUrl'] as const) {
      if (!notifications[key]) problems.push({ path: `/autorisatiesApi/notifications/${key}`, message: 'is required to subscribe' });
    }
  }
  if (config.development || !serving) return problems;
  // Never an open registry by omission: without development mode, clients and their applications.
  const clients = isRecord(config.clients) ? config.clients : {};
  if (!Object.keys(clients).length && !oauthConfigured(config)) {
    problems.push({ path: '/clients', message: 'is required: the client ids and secrets that may call the registry (see docs/authentication.md), or plugins.oauth, or run with --development on a developer machine' });
  }
  if (!config.applications && !config.autorisatiesApi) {
    problems.push({ path: '/applications', message: 'applications or autorisatiesApi is required: what each client may do (see docs/authentication.md)' });
  }
  // A secret that is no string the schema reported already.
  const strings = Object.fromEntries(Object.entries(clients).filter(([, secret]) => typeof secret === 'string' && secret));
  problems.push(...secretProblems(strings, '/clients', config.allowWeakSecrets === true));
  return problems;
}

/**
 * Every problem of a configuration as `serve` would use it (the file with flags and environment
 * applied): the JSON Schema (`config.schema.json`), the rules across keys, the database string and
 * the files it names (they exist, JSON ones parse), in one pass.
 * `serving: false` (migrate, outbox) leaves out what only serving needs: authentication.
 */
export function configProblems(config: unknown, { serving = true } = {}): SettingsProblem[] {
  const problems = settingsProblems(configSchema, config);
  // The cross-key rules read only values of the right type, so they run on a config the schema refused too.
  if (isRecord(config)) problems.push(...crossFieldProblems(config as CliConfig, serving));
  const given = isRecord(config) ? config.database : undefined;
  const database = isRecord(given) ? given.primary : given;
  const databaseProblem = typeof database === 'string' && database ? databaseStringProblem(database) : undefined;
  if (databaseProblem) problems.push({ path: isRecord(given) ? '/database/primary' : '/database', message: databaseProblem });
  const replicas = isRecord(given) && Array.isArray(given.replicas) ? given.replicas : [];
  replicas.forEach((replica, i) => {
    const replicaProblem = typeof replica === 'string' && replica ? databaseStringProblem(replica) : undefined;
    if (replicaProblem) problems.push({ path: `/database/replicas/${i}`, message: replicaProblem });
  });
  problems.push(...configFileProblems(config));
  // The applications are checked by both (the schema and the application rules): report each problem once.
  return [...new Map(problems.map((problem) => [`${problem.path}\0${problem.message}`, problem])).values()];
}

/** OAuth access tokens authenticate clients too: then ZGW client secrets are optional. */
const oauthConfigured = (config: CliConfig) => isRecord(config.plugins) && isRecord(config.plugins.oauth);

/** What is allowed but probably not meant: logged at start and printed by check-config. */
export function configWarnings(config: CliConfig): string[] {
  const warnings: string[] = [];
  if (config.allowWeakSecrets && !config.development) warnings.push('"allowWeakSecrets" is on: client secrets shorter than 32 bytes are accepted');
  for (const clientId of oauthConfigured(config) ? [] : (config.applications ?? []).flatMap((application) => application.clientIds)) {
    if (!Object.hasOwn(config.clients ?? {}, clientId)) warnings.push(`client id "${clientId}" has an application but no secret in "clients": it cannot authenticate`);
  }
  return warnings;
}

/** The files of `tls`, the oauth and the signing plugin, relative to the config file's directory. */
function resolveFiles(config: CliConfig, dir: string): void {
  const resolve = (file: unknown) => (typeof file === 'string' ? path.resolve(dir, file) : file) as string;
  if (isRecord(config.tls)) {
    for (const key of ['cert', 'key', 'clientCa'] as const) if (config.tls[key] !== undefined) config.tls[key] = resolve(config.tls[key]);
  }
  const oauth = isRecord(config.plugins) ? config.plugins.oauth : undefined;
  if (isRecord(oauth) && isRecord(oauth.fetch) && oauth.fetch.caFile !== undefined) oauth.fetch.caFile = resolve(oauth.fetch.caFile);
  if (isRecord(oauth) && isRecord(oauth.introspection) && oauth.introspection.privateKeyFile !== undefined) oauth.introspection.privateKeyFile = resolve(oauth.introspection.privateKeyFile);
  resolveSigningFiles(isRecord(config.plugins) ? config.plugins.signing : undefined, dir);
}

/** The signing plugin's key files (`*File`, clients' `file`) resolved against the config file's directory. */
function resolveSigningFiles(signing: unknown, dir: string): void {
  if (!isRecord(signing)) return;
  const resolve = (holder: Record<string, unknown>, key: string) => {
    if (typeof holder[key] === 'string') holder[key] = path.resolve(dir, holder[key]);
  };
  if (isRecord(signing.signResponses)) for (const key of ['privateKeyFile', 'certificateFile']) resolve(signing.signResponses, key);
  if (isRecord(signing.clients)) {
    for (const sources of Object.values(signing.clients)) if (Array.isArray(sources)) for (const source of sources) if (isRecord(source)) resolve(source, 'file');
  }
}

/** Reads a config file, its relative paths resolved against its directory; no checks yet (flags and environment apply first). */
export function readConfig(file?: string, env: NodeJS.ProcessEnv = process.env): CliConfig {
  let config: CliConfig = {};
  if (file) {
    try {
      config = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`cannot read the configuration file ${file}: ${(error as Error).message}`);
    }
    if (!config || typeof config !== 'object' || Array.isArray(config)) throw new Error(`the configuration file ${file} is not a JSON object`);
    const dir = path.dirname(file);
    if (config.catalog?.type === 'static' && typeof config.catalog.file === 'string') config.catalog.file = path.resolve(dir, config.catalog.file);
    if (isDatabaseDirectory(config.database)) config.database = path.resolve(dir, config.database);
    resolveFiles(config, dir);
  }
  if (env.PORT) config.port = /^\d+$/.test(env.PORT) ? Number(env.PORT) : (env.PORT as never);
  if (env.DATABASE_URL) locateDatabase(config, env.DATABASE_URL);
  return config;
}

/** Checks a configuration; throws a `ConfigError` listing every problem. */
export function checkConfig(config: CliConfig, source = 'command line', options: { serving?: boolean } = {}): CliConfig {
  const problems = configProblems(config, options);
  if (problems.length) throw new ConfigError(source, problems);
  return config;
}

/** Reads and checks a config file with the environment applied (the library's and tests' one-step form). */
export function loadConfig(file?: string, env: NodeJS.ProcessEnv = process.env): CliConfig {
  return checkConfig(readConfig(file, env), file);
}
