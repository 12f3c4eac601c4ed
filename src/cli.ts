#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { autorisatiesApi } from './auth/autorisaties-api.js';
import type { AuthOptions } from './auth/index.js';
import { staticAuthorizations } from './auth/static-source.js';
import type { AuthorizationSource } from './auth/types.js';
import { staticCatalog } from './catalog/static-catalog.js';
import { checkConfig, configWarnings, databaseLocation, DEFAULT_DATABASE, DEFAULT_PORT, locateDatabase, readConfig, type CliConfig } from './config.js';
import { databaseProblem } from './storage/describe-error.js';
import { demoCatalog, demoCatalogRouter } from './demo.js';
import { consoleLogger, type Logger } from './log.js';
import { createRegistry, type Registry } from './registry.js';
import { configuredPlugins } from './presets.js';
import { remoteClient } from './remote/fetch.js';
import { openStorage, postgresStorage, type Storage } from './storage/index.js';
import { createOutbox } from './outbox/index.js';
import { listeningOn, listenHost } from './ops/listen-address.js';
import { TOKEN_HELP, tokenCommand } from './cli/token.js';
import { UsageError, parseCommandLine } from './cli/usage.js';
import { announceFreshDatabase, commandLogger } from './cli/output.js';
import { EXPORT_HELP, IMPORT_HELP, exportCommand, importCommand } from './cli/migration.js';
import { exportFromApi } from './cli/export-api.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const COMMON_OPTIONS = `  --config <file.json>                  configuration file (JSON Schema: config.schema.json; see docs/configuration.md)
  --database <dir|memory|postgres-url>  database (env DATABASE_URL; default ./${DEFAULT_DATABASE})
  --log-level <level>                   debug, info, warn, error or silent (debug also prints stack traces)
  -h, --help                            this help`;

const HELP: Record<string, string> = {
  '': `Usage: zaakregister <command> [options]

Commands:
  serve          serve the Zaken API (default: http://localhost:${DEFAULT_PORT}/zaken/api/v1)
  deliver        deliver the outbox (notifications, relations) without serving the API
  migrate        apply the database migrations and exit
  check-config   check a configuration exactly as serve would, report every problem, and exit
  outbox list    list deliveries to other registries that wait or failed
  outbox retry   retry failed deliveries
  token          print a ZGW JWT for a client id and secret (for curl)
  export         write zaken with their whole history as NDJSON (from this registry or another Zaken API)
  import         import such a file: resumable, idempotent, verified (--verify)

Run zaakregister <command> --help for its options.

Options:
  -v, --version  print the version
  -h, --help     this help`,
  serve: `Usage: zaakregister serve [options]

Serves the Zaken API until SIGINT or SIGTERM.

Options:
  --port <n>                            port to listen on (env PORT; default ${DEFAULT_PORT}; 0: any free port)
  --host <address>                      interface to listen on (default: every interface; 127.0.0.1 with --development)
  --tls-cert <file.pem>                 serve HTTPS with this certificate (TLS 1.2+, NCSC cipher suites)
  --tls-key <file.pem>                  the private key of --tls-cert
  --tls-client-ca <file.pem>            ask for client certificates of these CAs (mutual TLS)
  --development                         authentication off, the demo catalog (also served at /catalogi/api/v1),
                                        127.0.0.1 only unless --host; never with real data
  --metrics-port <n>                    serve /metrics on this port only, not beside the API
${COMMON_OPTIONS}`,
  deliver: `Usage: zaakregister deliver [options]

Delivers what the registry's writes put in the outbox (notifications, relations in other
registries) until SIGINT or SIGTERM, serving no API: run it beside instances configured with
"outbox": { "dispatch": false }, so that deliveries take no CPU from their requests. Reads the
same configuration as serve (its plugins and "outbox" settings; "dispatch" is on here) and serves
/healthz, /readyz and /metrics on --port, over HTTP ("tls" is serve's).

Options:
  --port <n>                            port of /healthz, /readyz and /metrics (env PORT; default ${DEFAULT_PORT}; 0: any free port)
  --host <address>                      interface to listen on (default: every interface)
  --metrics-port <n>                    serve /metrics on this port only
${COMMON_OPTIONS}`,
  migrate: `Usage: zaakregister migrate [options]

Applies pending database migrations and exits (serve applies them too).

Options:
${COMMON_OPTIONS}`,
  token: TOKEN_HELP,
  export: EXPORT_HELP,
  import: IMPORT_HELP,
  'check-config': `Usage: zaakregister check-config [options]

Checks the configuration (file, flags and environment) as serve would, lists every problem with
its JSON path, and exits 0 when it is valid.

Options:
  --port <n>       as for serve
  --host <address> as for serve
  --development    as for serve
${COMMON_OPTIONS}`,
  outbox: `Usage: zaakregister outbox list [--status pending|failed] [--kind <kind>] [--limit <n>] [--json] [options]
       zaakregister outbox retry [<id> ...] [--kind <kind>] [options]

list:  deliveries to other registries that wait or failed, with their last error
retry: make failed deliveries due again: all, those of --kind, or the ids given; a running
       registry delivers them within its poll interval

Options:
${COMMON_OPTIONS}`,
};

/** Development mode, or ZGW JWT authentication with the configured applications (the config check made sure there are some; only development has none). */
function authorization(config: CliConfig, source: AuthorizationSource | undefined): 'development' | AuthOptions {
  if (config.development || !source) return 'development';
  return { source, clients: config.clients ?? {}, allowWeakSecrets: config.allowWeakSecrets, ...config.jwt };
}

/** The configured applications: static, or from an Autorisaties API (fetched with its own allow-list: only the configured hosts). */
function authorizationSource(config: CliConfig): AuthorizationSource | undefined {
  if (config.development) return undefined;
  if (config.applications) return staticAuthorizations(config.applications);
  // `migrate` without a configuration: nobody is authorized, nothing is served.
  const api = config.autorisatiesApi;
  if (!api) return undefined;
  const hosts = [api.url, api.notifications?.url].filter((url): url is string => !!url).map((url) => new URL(url).host);
  return autorisatiesApi({ ...api, remote: remoteClient({ ...config.remote, allowedHosts: hosts }) });
}

/** Development mode without a configured catalog: the demo catalog, served on the registry's own origin. */
const usesDemoCatalog = (config: CliConfig) => !!config.development && !config.catalog;

/**
 * The registry of a configuration, with the plugins it names: `serve` runs it; `deliver` runs its
 * outbox alone (no API is served, so nobody is authenticated); `migrate` only applies its migrations
 * (every configured plugin's, with its options), delivering nothing and fetching nothing.
 */
async function buildRegistry(config: CliConfig, log: Logger, origin: () => string, purpose: 'serve' | 'deliver' | 'migrate' | 'batch' = 'serve'): Promise<Registry> {
  // The Catalogi API over HTTP is the registry's default catalog: it shares the registry's remote
  // client, so its fetches and cache look-ups are in the metrics.
  const catalog =
    config.catalog?.type === 'static'
      ? staticCatalog(config.catalog.file)
      : usesDemoCatalog(config)
        ? demoCatalog(origin)
        : undefined;
  if (config.catalog?.type === 'static') log.info(`catalog: static types from ${config.catalog.file}`);
  else if (usesDemoCatalog(config)) log.info('catalog: the demo catalog (zaakregister/demo), served read-only at /catalogi/api/v1/zaaktypen');
  const source = authorizationSource(config);
  return createRegistry({
    baseUrl: config.baseUrl,
    storage: (await configuredServer(config)) ?? databaseLocation(config),
    catalog,
    remote: { allowedHosts: config.allowedHosts ?? [], ...config.remote },
    authorization: purpose === 'serve' ? authorization(config, source) : undefined,
    logger: log,
    preset: 'none',
    plugins: configuredPlugins(config.plugins, { authorizations: source, offline: purpose !== 'serve', migrating: purpose === 'migrate' }),
    migrate: purpose !== 'migrate',
    // `batch` (export, import): its writes' deliveries wait for a running registry to send them.
    outbox: { ...config.outbox, dispatch: purpose === 'serve' ? config.outbox?.dispatch : purpose === 'deliver' },
    strictNulls: config.strictNulls,
    drainTimeoutMs: config.drainTimeoutMs,
    drainGraceMs: config.drainGraceMs,
  });
}

async function serve(config: CliConfig, log: Logger): Promise<number> {
  let port = config.port ?? DEFAULT_PORT;
  const origin = () => (config.baseUrl ? new URL(config.baseUrl).origin : `${config.tls ? 'https' : 'http'}://localhost:${port}`);
  const tls = config.tls && { cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key), clientCa: config.tls.clientCa ? readFileSync(config.tls.clientCa) : undefined };
  const registry = await buildRegistry(config, log, origin);
  const routes = usesDemoCatalog(config) ? demoCatalogRouter(origin) : undefined;
  const server = await listenOrClose(registry, port, listenHost(config.host, !!config.development), { tls, metricsPort: config.metricsPort, routes });
  const address = server.address() as AddressInfo;
  port = address.port;
  const listening = listeningOn(address, config.tls ? 'https' : 'http');
  log.info(`serving ${config.baseUrl ?? `${origin()}/zaken/api/v1`} (listening on ${listening}; database: ${registry.services.storage.description})`, { port, host: address.address });
  await closeOnSignal(registry, log);
  return 0;
}

/** `registry.listen`; when it cannot, the registry closed and one line naming the setting. */
function listenOrClose(registry: Registry, port: number, host: string | undefined, options: Parameters<Registry['listen']>[2]) {
  return registry.listen(port, host, options).catch(async (error: unknown) => {
    await registry.close();
    throw new Error(`cannot listen on port ${port} (--port / PORT / "port"): ${(error as Error).message}`, { cause: error });
  });
}

/** Until SIGINT or SIGTERM, then the registry's shutdown (its servers drained, its deliveries finished). */
function closeOnSignal(registry: Registry, log: Logger): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info(`${signal} received, shutting down`);
      registry
        .close()
        .then(
          () => log.info('shutdown complete'),
          (error: unknown) => log.error('shutdown failed', { error: String(error) }),
        )
        .finally(resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

/** `"database"` given as an object: its PostgreSQL server, opened with its options; else undefined (the string is opened as it is). */
async function configuredServer(config: CliConfig): Promise<Storage | undefined> {
  if (typeof config.database !== 'object') return undefined;
  const { primary, preparedStatements, replicas, maxReplicaLagMs } = config.database;
  return postgresStorage({ connection: primary, preparedStatements, replicas, maxReplicaLagMs });
}

/** The outbox's dispatcher alone, with the probes and metrics an orchestrator asks for. */
async function deliver(config: CliConfig, log: Logger): Promise<number> {
  if (databaseLocation(config) === 'memory') throw new UsageError('deliver', 'deliver works on the database registries write to (a PostgreSQL URL or a PGlite directory), not on memory');
  const registry = await buildRegistry(config, log, () => 'http://localhost', 'deliver');
  const port = config.port ?? DEFAULT_PORT;
  const server = await listenOrClose(registry, port, listenHost(config.host, !!config.development), { metricsPort: config.metricsPort, api: false });
  const bound = (server.address() as AddressInfo).port;
  log.info(`delivering the outbox of ${registry.services.storage.description}; /healthz and /readyz on port ${bound}, /metrics on port ${config.metricsPort ?? bound}`, {
    port: bound,
    plugins: registry.plugins.map((plugin) => plugin.name),
  });
  await closeOnSignal(registry, log);
  return 0;
}

async function migrate(config: CliConfig, log: Logger): Promise<number> {
  const registry = await buildRegistry(config, log, () => 'http://localhost', 'migrate');
  const applied = await registry.migrate();
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
  await registry.close();
  return 0;
}

/** A command on the registry of the configuration, without serving it: its migrations applied, its deliveries left to a running registry. */
async function batch(config: CliConfig, log: Logger, work: (registry: Registry) => Promise<number>): Promise<number> {
  const registry = await buildRegistry(config, log, () => 'http://localhost', 'batch');
  try {
    return await work(registry);
  } finally {
    await registry.close();
  }
}

/** `outbox list` and `outbox retry`: the stored deliveries, without starting a registry or delivering anything. */
async function outboxCommand(config: CliConfig, args: string[], flags: { status?: string; kind?: string; limit?: string; json?: boolean }): Promise<number> {
  const [action, ...ids] = args;
  if (action !== 'list' && action !== 'retry') throw new UsageError('outbox', 'outbox takes list or retry');
  if (flags.status !== undefined && flags.status !== 'pending' && flags.status !== 'failed') throw new UsageError('outbox', '--status is pending or failed');
  if (flags.limit !== undefined && !/^\d+$/.test(flags.limit)) throw new UsageError('outbox', '--limit is a number');
  if (ids.some((id) => !/^\d+$/.test(id))) throw new UsageError('outbox', 'outbox retry takes delivery ids (numbers)');
  const storage = (await configuredServer(config)) ?? (await openStorage(databaseLocation(config)));
  try {
    const { outbox } = createOutbox(storage.knex, new Map(), consoleLogger('silent'), { dispatch: false });
    if (action === 'retry') {
      const selection = ids.length ? { ids: ids.map(Number) } : { status: 'failed' as const, kind: flags.kind };
      process.stdout.write(`${await outbox.retry(selection)} deliveries due again; a running registry delivers them within its poll interval\n`);
      return 0;
    }
    const entries = await outbox.list({ status: flags.status as 'pending' | 'failed' | undefined, kind: flags.kind, limit: flags.limit ? Number(flags.limit) : undefined });
    const counts = await outbox.counts();
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ pending: counts.pending, failed: counts.failed, byKind: counts.byKind, entries }, null, 2)}\n`);
      return 0;
    }
    process.stdout.write(`pending: ${counts.pending}, failed: ${counts.failed}\n`);
    for (const e of entries) {
      process.stdout.write(`${e.id}\t${e.status}\t${e.kind}\t${e.target}\tattempts ${e.attempts}\tcreated ${e.createdAt}\tnext ${e.nextAttemptAt}${e.lastError ? `\t${e.lastError}` : ''}\n`);
    }
    return 0;
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') throw new Error('the database has no outbox yet: run `zaakregister migrate` first', { cause: error });
    throw error;
  } finally {
    await storage.close();
  }
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;

/** The effective configuration: the file, then the environment, then the flags; checked as a whole. */
function configuration(values: ReturnType<typeof parseCommandLine>['values'], serving: boolean): CliConfig {
  const config = readConfig(values.config);
  if (values.port !== undefined) config.port = /^\d+$/.test(values.port) ? Number(values.port) : (values.port as never);
  if (values.database !== undefined) locateDatabase(config, values.database);
  if (values.host !== undefined) config.host = values.host;
  if (values['metrics-port'] !== undefined) config.metricsPort = /^\d+$/.test(values['metrics-port']) ? Number(values['metrics-port']) : (values['metrics-port'] as never);
  if (values.development) config.development = true;
  if (values['tls-cert'] !== undefined || values['tls-key'] !== undefined || values['tls-client-ca'] !== undefined) {
    config.tls = { ...config.tls, cert: values['tls-cert'] ?? config.tls?.cert, key: values['tls-key'] ?? config.tls?.key, clientCa: values['tls-client-ca'] ?? config.tls?.clientCa } as CliConfig['tls'];
  }
  if (values['log-level'] !== undefined) config.logLevel = values['log-level'] as CliConfig['logLevel'];
  return checkConfig(config, values.config ?? 'command line and environment', { serving });
}

let debug = false;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv);
  debug = values['log-level'] === 'debug';
  const command = positionals[0] ?? '';
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (values.help || !command) {
    process.stdout.write(`${HELP[command] ?? HELP['']}\n`);
    return values.help ? 0 : 1;
  }
  if (!Object.hasOwn(HELP, command)) throw new UsageError('', `unknown command "${command}"`);
  if (command === 'token') return tokenCommand(values);
  if (command === 'export' && values['from-api'] !== undefined) return exportFromApi(values);
  if (values['log-level'] !== undefined && !(LOG_LEVELS as readonly string[]).includes(values['log-level'])) {
    throw new UsageError(command, `--log-level is one of ${LOG_LEVELS.join(', ')}`);
  }
  const config = configuration(values, command === 'serve' || command === 'check-config');
  debug = config.logLevel === 'debug';
  const log = commandLogger(command, config);
  const warnings = configWarnings(config);
  if (command === 'check-config') {
    for (const warning of warnings) process.stdout.write(`warning: ${warning}\n`);
    process.stdout.write(`${values.config ?? '(no file)'}: the configuration is valid\n`);
    return 0;
  }
  for (const warning of warnings) log.warn(warning);
  try {
    announceFreshDatabase(databaseLocation(config), log);
    if (command === 'serve') return await serve(config, log);
    if (command === 'deliver') return await deliver(config, log);
    if (command === 'migrate') return await migrate(config, log);
    if (command === 'export' || command === 'import') return await batch(config, log, (registry) => (command === 'export' ? exportCommand : importCommand)(registry, values, log));
    return await outboxCommand(config, positionals.slice(1), values);
  } catch (error) {
    const setting =
      values.database !== undefined ? '--database' : process.env.DATABASE_URL ? 'DATABASE_URL' : config.database ? '"database" in the config file' : `the default, ./${DEFAULT_DATABASE}`;
    throw databaseProblem(error, setting) ?? error;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`zaakregister: ${error.message}; see zaakregister ${error.command ? `${error.command} ` : ''}--help\n`);
      process.exit(2);
    }
    process.stderr.write(`zaakregister: ${(error as Error).message}\n`);
    if (debug) process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  },
);
