/**
 * The registry reading lists from a streaming replica against the same registry on the primary
 * alone: one primary and one `pg_basebackup -R` replica of it, both started here on this machine
 * (Debian's server binaries), seeded once; list pages at 16 connections, in alternating rounds.
 *
 *   npx tsx bench/api/replicas.ts [--sizes 10000] [--duration 5] [--warmup 3] [--connections 16] [--rounds 3]
 */
import { consoleLogger, createRegistry, signZgwJwt, staticCatalog } from '../../src/index.js';
import { postgresBinaries, startReplicaCluster } from '../../test/helpers/replica-cluster.js';
import { measure, type Measurement, type Scenario } from './measure.js';
import { connectionCounts, log, roundCount, sizes } from './options.js';
import { medians, table } from './report.js';
import { seed } from './seed.js';
import { start, stop } from './servers.js';
import { SECRET, benchCatalog } from './world.js';

const binaries = postgresBinaries();
if (typeof binaries !== 'string') throw new Error(binaries.error);
for (const size of sizes) {
  const cluster = await startReplicaCluster(binaries);
  const servers: Awaited<ReturnType<typeof start>>[] = [];
  try {
    const seeding = await createRegistry({ storage: cluster.primaryUrl, catalog: staticCatalog(benchCatalog()), logger: consoleLogger('warn') });
    log(`seeding ${size.toLocaleString('en')} zaken on the primary`);
    await seed(seeding.services.storage.knex, size, log);
    await seeding.services.storage.knex.raw('analyze');
    await seeding.close();
    const [{ lsn }] = (await cluster.onPrimary('select pg_current_wal_insert_lsn()::text as lsn')) as { lsn: string }[];
    for (;;) {
      const [{ behind }] = (await cluster.onReplica(`select pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn as behind`)) as { behind: boolean }[];
      if (!behind) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const primaryOnly = await start('bench/api/registry-server.ts', cluster.primaryUrl);
    const withReplica = await start('bench/api/registry-server.ts', cluster.primaryUrl, { REPLICAS: cluster.replicaUrl });
    servers.push(primaryOnly, withReplica);
    const headers = { authorization: `Bearer ${await signZgwJwt('bench-alles', SECRET)}` };
    const pages = Array.from({ length: 10 }, (_, i) => ({ method: 'GET' as const, path: `/zaken/api/v1/zaken?page=${i + 1}` }));
    const rounds: Measurement[][] = [];
    for (let round = 0; round < roundCount; round++) {
      const measured: Measurement[] = [];
      for (const connections of connectionCounts) {
        // Alternating which goes first: neither always runs on a warmer machine.
        const order = round % 2 ? (['replica', 'primary'] as const) : (['primary', 'replica'] as const);
        for (const via of order) {
          const server = via === 'primary' ? primaryOnly : withReplica;
          const scenario: Scenario = { name: `GET /zaken pages 1-10, ${via === 'primary' ? 'primary only' : 'primary + replica'}`, target: 'registry', baseline: via === 'primary' ? undefined : 'GET /zaken pages 1-10, primary only', requests: pages, headers };
          const m = await measure(server, scenario, connections);
          log(`  round ${round + 1} ${m.scenario} @${connections}: ${m.requestsPerSecond} req/s${m.failed ? `, ${m.failed} failed` : ''}`);
          measured.push(m);
        }
      }
      rounds.push(measured.sort((a, b) => a.scenario.localeCompare(b.scenario) || a.connections - b.connections));
    }
    console.log(`\n### ${size.toLocaleString('en')} zaken, lists read from a streaming replica against the primary alone\n\n${table(medians(rounds))}\n`);
  } finally {
    for (const server of servers) await stop(server.child);
    cluster.stop();
  }
}
