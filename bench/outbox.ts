/**
 * Deliveries per second the outbox dispatcher sustains on PostgreSQL: N deliveries enqueued, then
 * delivered by one registry instance (and by two on the same database) to a stand-in HTTP target on
 * 127.0.0.1 that answers 201 at once, so the figure is the dispatcher's own cost (claims, handler,
 * delete), not a remote registry's.
 *
 *   npx tsx bench/outbox.ts [deliveries] [postgres-url]
 *
 * Prints a Markdown table. Not part of `npm test`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import knexFactory from 'knex';
import { consoleLogger, createRegistry, postgresStorage, type Plugin, type Registry } from '../src/index.js';

const N = Number(process.argv[2] ?? 20_000);
const ONLY = process.env.BENCH_RUNS ? Number(process.env.BENCH_RUNS) : 4;
const ADMIN_URL = process.argv[3] ?? process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const target = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/notificaties`;

const sink: Plugin = {
  name: 'bench-sink',
  setup(api) {
    api.addDeliveryHandler('bench', async ({ payload, signal }) => {
      const response = await fetch(targetUrl, { method: 'POST', body: JSON.stringify(payload), headers: { 'content-type': 'application/json' }, signal });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`target answered ${response.status}`);
    });
  },
};

const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
const database = `zaakregister_bench_outbox_${process.pid}`;
await admin.raw('create database ??', [database]);
const url = new URL(ADMIN_URL);
url.pathname = `/${database}`;

async function registry(dispatch: boolean, options: Record<string, number> = {}): Promise<Registry> {
  return createRegistry({
    storage: await postgresStorage({ connection: url.toString() }),
    preset: 'none',
    authorization: 'development',
    logger: consoleLogger('silent'),
    plugins: [sink],
    outbox: { dispatch, pollIntervalMs: 20, ...options },
  });
}

/** Enqueues `n` deliveries over `targets` targets (keys unique, so nothing waits on order), in transactions of 500. */
async function enqueue(r: Registry, n: number, targets: number): Promise<void> {
  for (let i = 0; i < n; i += 500) {
    await r.services.storage.transaction((tx) =>
      r.outbox.enqueue(
        tx,
        Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
          kind: 'bench',
          target: `target-${(i + j) % targets}`,
          key: `k-${i + j}`,
          payload: { kanaal: 'zaken', resource: 'zaak', actie: 'create', n: i + j },
        })),
      ),
    );
  }
}

async function drain(r: Registry): Promise<void> {
  while ((await r.outbox.counts()).pending > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

const rows: string[] = [];
const setup = await registry(false);
const RUNS = [
  ['1 instance, 1 target (4 at once)', 1, 1, {}],
  ['1 instance, 8 targets (16 at once)', 1, 8, {}],
  ['1 instance, 8 targets (64 at once)', 1, 8, { concurrency: 64, perTargetConcurrency: 16 }],
  ['2 instances, 8 targets (16 at once each)', 2, 8, {}],
] as const;
for (const [label, instances, targets, options] of RUNS.slice(0, ONLY)) {
  await enqueue(setup, N, targets);
  const start = performance.now();
  const dispatchers = await Promise.all(Array.from({ length: instances }, () => registry(true, options)));
  await drain(setup);
  const seconds = (performance.now() - start) / 1000;
  const counters = await Promise.all(dispatchers.map(async (d) => (await d.outbox.counts()).delivered));
  await Promise.all(dispatchers.map((d) => d.close()));
  rows.push(`| ${label} | ${counters.reduce((a, b) => a + b, 0)} | ${seconds.toFixed(2)} | ${Math.round(N / seconds)} |`);
}
await setup.close();
const { rows: version } = await admin.raw('show server_version');
await admin.raw('drop database if exists ?? with (force)', [database]);
await admin.destroy();
target.close();

console.log(`Outbox dispatcher on PostgreSQL ${version[0].server_version}, ${os.cpus().length} cores, ${N} deliveries per run\n`);
console.log('| run | delivered | seconds | deliveries/s |');
console.log('|---|---|---|---|');
for (const row of rows) console.log(row);
