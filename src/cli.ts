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
import { createOutbox } from './outbox/index.js';

const USAGE = `Usage: zaakregister <command> [options]

Commands:
  serve          serve the Zaken API (default: http://localhost:${DEFAULT_PORT}/zaken/api/v1)
  migrate        apply the database migrations and exit
  check-config   check a configuration file and exit
  outbox list    list deliveries to other registries that wait or failed (--status, --kind, --limit, --json)
  outbox retry   retry failed deliveries: all, those of --kind, or the ids given (outbox retry 12 13)

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
    outbox: config.outbox,
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
      status: { type: 'string' },
      kind: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
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
    case 'outbox':
      return outboxCommand(config, positionals.slice(1), values);
    default:
      process.stderr.write(`unknown command "${command}"\n\n${USAGE}\n`);
      return 1;
  }
}

/** `outbox list` and `outbox retry`: the stored deliveries, without starting a registry or delivering anything. */
async function outboxCommand(config: CliConfig, args: string[], flags: { status?: string; kind?: string; limit?: string; json?: boolean }): Promise<number> {
  const [action, ...ids] = args;
  if (action !== 'list' && action !== 'retry') {
    process.stderr.write(`usage: zaakregister outbox list|retry\n\n${USAGE}\n`);
    return 1;
  }
  if (flags.status !== undefined && flags.status !== 'pending' && flags.status !== 'failed') throw new Error('--status is pending or failed');
  if (ids.some((id) => !/^\d+$/.test(id))) throw new Error('outbox retry takes delivery ids (numbers)');
  const storage = await openStorage(config.database ?? DEFAULT_DATABASE);
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`zaakregister: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
