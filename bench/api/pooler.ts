/**
 * The registry behind PgBouncer in transaction pooling mode against the registry connected
 * directly, on one seeded database: list pages and `POST /zaken`, ratios in one run.
 *
 *   npx tsx bench/api/pooler.ts [--sizes 100000] [--duration 5] [--warmup 3] [--connections 16]
 *
 * Needs Debian's `pgbouncer` (`apt-get install pgbouncer`). PgBouncer gets as many server
 * connections as the registry's pool (10); the pooled registry prepares no statements
 * (`preparedStatements: false`, for PgBouncer before 1.21).
 */
import { pgbouncerBinary, startPgBouncer } from '../../test/helpers/pgbouncer.js';
import { prepare, reset } from './databases.js';
import { measure, type Measurement, type Scenario } from './measure.js';
import { SERVER, connectionCounts, log, sizes } from './options.js';
import { table } from './report.js';
import { signZgwJwt } from '../../src/index.js';
import { RSIN, SECRET, ZAAKTYPEN, zaaktypeUrl } from './world.js';
import { start, stop } from './servers.js';

const binary = pgbouncerBinary();
if (typeof binary !== 'string') throw new Error(binary.error);
for (const size of sizes) {
  const { database } = await prepare(size);
  await reset(database);
  const bouncer = await startPgBouncer(binary, { upstream: new URL(SERVER), mode: 'transaction', poolSize: 10 });
  const direct = await start('bench/api/registry-server.ts', database);
  const pooled = await start('bench/api/registry-server.ts', bouncer.url(new URL(database).pathname.slice(1)), { PREPARED_STATEMENTS: 'false' });
  const headers = { authorization: `Bearer ${await signZgwJwt('bench-alles', SECRET)}` };
  const pages = Array.from({ length: 10 }, (_, i) => ({ method: 'GET' as const, path: `/zaken/api/v1/zaken?page=${i + 1}` }));
  const zaken = Array.from({ length: 100 }, (_, i) => ({
    method: 'POST' as const,
    path: '/zaken/api/v1/zaken',
    body: JSON.stringify({ zaaktype: zaaktypeUrl(i % ZAAKTYPEN), bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, startdatum: '2026-01-01' }),
    headers: { ...headers, 'content-type': 'application/json' },
  }));
  const cells: [string, Scenario['requests']][] = [
    ['GET /zaken pages 1-10', pages],
    ['POST /zaken', zaken],
  ];
  const measured: Measurement[] = [];
  try {
    for (const [name, requests] of cells) {
      for (const connections of connectionCounts) {
        for (const [via, server] of [['direct', direct], ['PgBouncer (transaction)', pooled]] as const) {
          const scenario: Scenario = { name: `${name}, ${via}`, target: 'registry', baseline: via === 'direct' ? undefined : `${name}, direct`, requests, headers };
          const m = await measure(server, scenario, connections);
          log(`  ${m.scenario} @${connections}: ${m.requestsPerSecond} req/s${m.failed ? `, ${m.failed} failed` : ''}`);
          measured.push(m);
        }
      }
    }
  } finally {
    await stop(direct.child);
    await stop(pooled.child);
    await bouncer.stop();
  }
  console.log(`\n### ${size.toLocaleString('en')} zaken, PgBouncer ${bouncer.version} in transaction mode against direct\n\n${table(measured)}\n`);
}
