/**
 * The registry under test, in a process of its own: the standard preset and the handelingen, ZGW JWT authentication,
 * the benchmark's static catalog. `DATABASE` names the storage; with `NOTIFICATIES_URL` it also
 * publishes notifications there (an outbox row per change, delivered after commit; with
 * `OUTBOX_DISPATCH=false` only enqueued, as by an API instance beside `zaakregister deliver`
 * workers). With `PREPARED_STATEMENTS=false` it prepares no statement (behind PgBouncer in
 * transaction mode). With `REPLICAS` (postgres:// URLs, comma-separated) safe reads go to those
 * streaming replicas. It prints `ready <port>`.
 */
import type { AddressInfo } from 'node:net';
import { consoleLogger, createRegistry, handelingen, notifications, postgresStorage, staticAuthorizations, staticCatalog } from '../../src/index.js';
import { APPLICATIONS, CLIENTS, SECRET, benchCatalog } from './world.js';

const notificaties = process.env.NOTIFICATIES_URL;

const replicas = process.env.REPLICAS ? process.env.REPLICAS.split(',') : undefined;
const prepared = process.env.PREPARED_STATEMENTS !== 'false';
const registry = await createRegistry({
  storage: !prepared || replicas ? await postgresStorage({ connection: process.env.DATABASE!, preparedStatements: prepared, replicas }) : process.env.DATABASE!,
  catalog: staticCatalog(benchCatalog()),
  authorization: { clients: CLIENTS, source: staticAuthorizations(APPLICATIONS), maxAgeSeconds: 24 * 3600 },
  logger: consoleLogger('warn'),
  outbox: { dispatch: process.env.OUTBOX_DISPATCH !== 'false' },
  plugins: [handelingen(), ...(notificaties ? [notifications({ url: notificaties, auth: { clientId: 'bench-nrc', secret: SECRET }, registerKanaal: false })] : [])],
});
const server = await registry.listen(0, '127.0.0.1');
console.log(`ready ${(server.address() as AddressInfo).port}`);
process.once('SIGTERM', () => void registry.close().then(() => process.exit(0)));
