/**
 * What the cloudevents plugin costs, against the classic notifications alone, on PostgreSQL:
 *
 *  - writes: `POST /zaken` + `POST /statussen` pairs per second, with the notifications plugin only,
 *    and with the cloudevents plugin (one webhook sink, profile mijn-overheid) beside it. Deliveries
 *    are not made (`dispatch: false`): this is what enqueuing in the write's transaction costs.
 *  - drain: a backlog of N deliveries (classic notifications, or CloudEvents to one webhook)
 *    delivered by one dispatcher to a stand-in on 127.0.0.1 that answers at once.
 *
 *   npx tsx bench/cloudevents.ts [backlog] [seconds] [postgres-url]      (BENCH_ROUNDS=5: more rounds)
 *
 * Every figure is measured in rounds (3 unless BENCH_ROUNDS says), each setup first in every other
 * round, and the median round reported. Beside the writes' rate, the CPU time this process (registry
 * and load driver) spent per pair: steadier than the rate on a machine shared with other work. Prints Markdown tables. Not part of `npm test`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import knexFactory from 'knex';
import { cloudevents, consoleLogger, createRegistry, notifications, postgresStorage, staticCatalog, type Registry } from '../src/index.js';

const BACKLOG = Number(process.argv[2] ?? 10_000);
const SECONDS = Number(process.argv[3] ?? 5);
const ADMIN_URL = process.argv[4] ?? process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 8;
const RSIN = '517439943';
const CATALOGUS = 'http://catalogus.bench/catalogi/api/v1';
const ZAAKTYPE = `${CATALOGUS}/zaaktypen/1`;
const STATUSTYPE = `${CATALOGUS}/statustypen/1`;

const target = createServer((req, res) => {
  req.resume();
  req.on('end', () => (req.url?.endsWith('/notificaties') ? res.writeHead(201, { 'content-type': 'application/json' }).end('{}') : res.writeHead(204).end()));
});
await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;

const admin = knexFactory({ client: 'pg', connection: ADMIN_URL, pool: { min: 0, max: 1 } });
const databases: string[] = [];
async function database(): Promise<string> {
  const name = `zaakregister_bench_ce_${process.pid}_${databases.length}`;
  await admin.raw('create database ??', [name]);
  databases.push(name);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

type Setup = 'classic' | 'cloudevents';
async function registry(setup: Setup, dispatch: boolean, connection?: string): Promise<Registry> {
  return createRegistry({
    storage: await postgresStorage({ connection: connection ?? (await database()) }),
    preset: 'none',
    authorization: 'development',
    logger: consoleLogger('silent'),
    catalog: staticCatalog({
      zaaktypen: [{ url: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar', catalogus: `${CATALOGUS}/catalogussen/1`, statustypen: [STATUSTYPE], informatieobjecttypen: [] }],
      statustypen: [{ url: STATUSTYPE, zaaktype: ZAAKTYPE, volgnummer: 1 }],
    }),
    plugins: [
      notifications({ url: `${origin}/api/v1`, registerKanaal: false }),
      ...(setup === 'cloudevents' ? [cloudevents({ source: 'urn:nld:oin:00000001823288444000:systeem:bench', sinks: [{ id: 'webhook', url: `${origin}/events` }] })] : []),
    ],
    outbox: { dispatch, pollIntervalMs: 20 },
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Pairs of POST /zaken + POST /statussen per second, `CONNECTIONS` loops for `SECONDS`. */
async function writes(r: Registry): Promise<{ rate: number; cpuMsPerPair: number }> {
  const server = await r.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/zaken/api/v1`;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await response.json()) as { url: string };
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const pair = async () => {
    const zaak = await post('/zaken', { zaaktype: ZAAKTYPE, bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, startdatum: '2024-03-01' });
    await post('/statussen', { zaak: zaak.url, statustype: STATUSTYPE, datumStatusGezet: '2024-03-01T10:00:00Z' });
  };
  const run = async (seconds: number) => {
    let done = 0;
    const cpuBefore = process.cpuUsage();
    const until = performance.now() + seconds * 1000;
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        await pair();
        done++;
      }
    }));
    const cpu = process.cpuUsage(cpuBefore);
    return { rate: done / seconds, cpuMsPerPair: (cpu.user + cpu.system) / 1000 / done };
  };
  await run(1); // warm-up
  return run(SECONDS);
}

/** Deliveries per second of a backlog of `BACKLOG` rows of one kind (5 per zaak, in order per zaak). */
async function drain(setup: Setup): Promise<number> {
  const writer = await registry(setup, false);
  const connection = writer.services.storage.description;
  const zaak = (i: number) => `http://zaken.bench/zaken/api/v1/zaken/${Math.floor(i / 5)}`;
  for (let i = 0; i < BACKLOG; i += 500) {
    const rows = Array.from({ length: Math.min(500, BACKLOG - i) }, (_, j) => {
      const url = zaak(i + j);
      const kenmerken = { bronorganisatie: RSIN, zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' };
      return setup === 'classic'
        ? { kind: 'notifications', target: new URL(origin).host, key: url, payload: { kanaal: 'zaken', hoofdObject: url, resource: 'status', resourceUrl: `${url}/s`, actie: 'create', aanmaakdatum: new Date().toISOString(), kenmerken } }
        : {
            kind: 'cloudevents',
            target: new URL(origin).host,
            key: `ce:webhook:${url}`,
            payload: {
              sink: 'webhook',
              event: { specversion: '1.0', id: crypto.randomUUID(), source: 'urn:nld:oin:00000001823288444000:systeem:bench', type: 'nl.overheid.zaken.zaak-gemuteerd', subject: String(i + j), time: new Date().toISOString(), datacontenttype: 'application/json', dataref: url, data: { ...kenmerken, 'zaaktype.catalogus': `${CATALOGUS}/catalogussen/1` } },
            },
          };
    });
    await writer.services.storage.transaction((tx) => writer.outbox.enqueue(tx, rows));
  }
  await writer.close();
  const start = performance.now();
  const dispatcher = await registry(setup, true, connection);
  while ((await dispatcher.outbox.counts()).pending > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const rate = BACKLOG / ((performance.now() - start) / 1000);
  await dispatcher.close();
  return rate;
}

/** Which setup goes first alternates per round: neither always gets the warmer (or the busier) moment. */
const inOrder = (round: number): Setup[] => (round % 2 === 0 ? ['classic', 'cloudevents'] : ['cloudevents', 'classic']);
const results: Record<Setup, { writes: number[]; cpu: number[]; drain: number[] }> = { classic: { writes: [], cpu: [], drain: [] }, cloudevents: { writes: [], cpu: [], drain: [] } };
const writers = { classic: await registry('classic', false), cloudevents: await registry('cloudevents', false) };
for (let round = 0; round < ROUNDS; round++) {
  for (const setup of inOrder(round)) {
    const { rate, cpuMsPerPair } = await writes(writers[setup]);
    results[setup].writes.push(rate);
    results[setup].cpu.push(cpuMsPerPair);
    process.stderr.write(`round ${round + 1}, ${setup}: writes done\n`);
  }
}
await Promise.all(Object.values(writers).map((r) => r.close()));
for (let round = 0; round < ROUNDS; round++) {
  for (const setup of inOrder(round)) {
    results[setup].drain.push(await drain(setup));
    process.stderr.write(`round ${round + 1}, ${setup}: drain done\n`);
  }
}

const { rows: version } = await admin.raw('show server_version');
for (const name of databases) await admin.raw('drop database if exists ?? with (force)', [name]);
await admin.destroy();
target.close();

const [classicWrites, ceWrites] = [median(results.classic.writes), median(results.cloudevents.writes)];
const [classicCpu, ceCpu] = [median(results.classic.cpu), median(results.cloudevents.cpu)];
const [classicDrain, ceDrain] = [median(results.classic.drain), median(results.cloudevents.drain)];
console.log(`cloudevents against classic notifications, PostgreSQL ${version[0].server_version}, ${os.cpus().length} cores, Node ${process.version}; median of ${ROUNDS} alternating rounds; load average ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}\n`);
console.log(`rounds, pairs/s: classic ${results.classic.writes.map((n) => n.toFixed(1)).join(' ')}; cloudevents ${results.cloudevents.writes.map((n) => n.toFixed(1)).join(' ')}\n`);
console.log('| measure | classic notifications only | with cloudevents (1 webhook sink) | ratio |');
console.log('|---|---|---|---|');
console.log(`| POST /zaken + POST /statussen pairs/s (${CONNECTIONS} connections, ${SECONDS} s) | ${classicWrites.toFixed(1)} | ${ceWrites.toFixed(1)} | ${(ceWrites / classicWrites).toFixed(2)}x |`);
console.log(`| CPU ms of this process per pair (registry and load driver) | ${classicCpu.toFixed(2)} | ${ceCpu.toFixed(2)} | ${(ceCpu / classicCpu).toFixed(2)}x |`);
console.log(`| backlog of ${BACKLOG} drained, deliveries/s | ${Math.round(classicDrain)} | ${Math.round(ceDrain)} | ${(ceDrain / classicDrain).toFixed(2)}x |`);
