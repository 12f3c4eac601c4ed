#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { autorisatiesApi } from './auth/autorisaties-api.js';
import type { AuthOptions } from './auth/index.js';
import { staticAuthorizations } from './auth/static-source.js';
import type { AuthorizationSource } from './auth/types.js';
import { httpCatalog } from './catalog/http-catalog.js';
import { staticCatalog } from './catalog/static-catalog.js';
import { DEFAULT_DATABASE, DEFAULT_PORT, loadConfig, type CliConfig } from './config.js';
import { consoleLogger, type Logger } from './log.js';
import { createRegistry, type Registry } from './registry.js';
import { configuredPlugins } from './presets.js';
import { remoteClient } from './remote/fetch.js';
import { openStorage } from './storage/index.js';

const USAGE = `Usage: zaakregister <command> [options]

Commands:
  serve          serve the Zaken API (default: http://localhost:${DEFAULT_PORT}/zaken/api/v1)
  migrate        apply the database migrations and exit
  check-config   check a configuration file and exit

Options:
  --config <file.json>                  configuration file (see README)
  --port <n>                            port to listen on (env PORT)
  --database <dir|memory|postgres-url>  database (env DATABASE_URL; default ./${DEFAULT_DATABASE})
  --development                         turn authentication off (never with real data)
  -h, --help`;

/** The demo catalog a development setup uses when no catalog is configured. */
const DEMO_CATALOG = fileURLToPath(new URL('../examples/demo-catalog.json', import.meta.url));

/** The configured applications: static, or from an Autorisaties API (fetched with its own allow-list: only the configured hosts). */
function authorizationSource(config: CliConfig): AuthorizationSource | undefined {
  if (config.applications) return staticAuthorizations(config.applications);
  const api = config.autorisatiesApi;
  if (!api) return undefined;
  const hosts = [api.url, api.notifications?.url].filter((url): url is string => !!url).map((url) => new URL(url).host);
  return autorisatiesApi({ ...api, remote: remoteClient({ ...config.remote, allowedHosts: hosts }) });
}

/** Development mode, or ZGW JWT authentication; never an open registry by omission. */
function authorization(config: CliConfig, log: Logger): 'development' | AuthOptions {
  if (config.development) return 'development';
  const source = authorizationSource(config);
  const clients = config.clients ?? {};
  if (!source || !Object.keys(clients).length) {
    throw new Error(
      'no authentication configured: set "clients" and "applications" (or "autorisatiesApi") in the config file ' +
        '(see docs/authentication.md), or pass --development on a developer machine',
    );
  }
  for (const clientId of (config.applications ?? []).flatMap((application) => application.clientIds)) {
    if (!Object.hasOwn(clients, clientId)) log.warn(`client id "${clientId}" has an application but no secret in "clients": it cannot authenticate`);
  }
  return { source, clients, ...config.jwt };
}

async function buildRegistry(config: CliConfig): Promise<Registry> {
  const log = consoleLogger(config.logLevel ?? 'info');
  const auth = authorization(config, log);
  const remote = remoteClient({ allowedHosts: config.allowedHosts ?? [], ...config.remote });
  const catalogConfig = config.catalog ?? (config.development ? { type: 'static' as const, file: DEMO_CATALOG } : { type: 'http' as const });
  const catalog = catalogConfig.type === 'static' ? staticCatalog(catalogConfig.file) : httpCatalog({ remote });
  if (catalogConfig.type === 'static') log.info(`catalog: static types from ${catalogConfig.file}`);
  return createRegistry({
    baseUrl: config.baseUrl,
    storage: config.database ?? DEFAULT_DATABASE,
    catalog,
    remote: { allowedHosts: config.allowedHosts ?? [], ...config.remote },
    authorization: auth,
    logger: log,
    preset: 'none',
    plugins: configuredPlugins(config.plugins),
  });
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      database: { type: 'string' },
      development: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  if (values.help || !command) {
    process.stdout.write(USAGE + '\n');
    return command || values.help ? 0 : 1;
  }
  const config = loadConfig(values.config);
  if (values.port !== undefined) config.port = Number(values.port);
  if (values.database !== undefined) config.database = values.database;
  if (values.development) config.development = true;

  switch (command) {
    case 'check-config':
      process.stdout.write(`${values.config ?? '(no file)'}: configuration is valid\n`);
      return 0;
    case 'migrate': {
      const storage = await openStorage(config.database ?? DEFAULT_DATABASE);
      const registry = await createRegistry({ storage, migrate: false, logger: consoleLogger(config.logLevel ?? 'info'), catalog: httpCatalog({ allowedHosts: [] }) });
      const applied = await registry.migrate();
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
      await registry.close();
      return 0;
    }
    case 'serve': {
      const registry = await buildRegistry(config);
      const port = config.port ?? DEFAULT_PORT;
      const server = await registry.listen(port, config.host);
      const address = server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const base = config.baseUrl ?? `http://localhost:${actualPort}/zaken/api/v1`;
      registry.services.log.info(`serving ${base} (database: ${registry.services.storage.description})`);
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          registry.services.log.info(`${signal} received, shutting down`);
          registry.close().then(resolve, (error: unknown) => {
            registry.services.log.error('shutdown failed', { error: String(error) });
            resolve();
          });
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      });
      return 0;
    }
    default:
      process.stderr.write(`unknown command "${command}"\n\n${USAGE}\n`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`zaakregister: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
