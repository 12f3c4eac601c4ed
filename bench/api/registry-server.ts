/**
 * The registry under test, in a process of its own: the standard preset, ZGW JWT authentication,
 * the benchmark's static catalog. `DATABASE` names the storage; it prints `ready <port>`.
 */
import type { AddressInfo } from 'node:net';
import { consoleLogger, createRegistry, staticAuthorizations, staticCatalog } from '../../src/index.js';
import { APPLICATIONS, CLIENTS, benchCatalog } from './world.js';

const registry = await createRegistry({
  storage: process.env.DATABASE!,
  catalog: staticCatalog(benchCatalog()),
  authorization: { clients: CLIENTS, source: staticAuthorizations(APPLICATIONS), maxAgeSeconds: 24 * 3600 },
  logger: consoleLogger('warn'),
});
const server = await registry.listen(0, '127.0.0.1');
console.log(`ready ${(server.address() as AddressInfo).port}`);
process.once('SIGTERM', () => void registry.close().then(() => process.exit(0)));
