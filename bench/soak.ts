/**
 * A soak run: one registry process (the API benchmark's: ZGW JWT, the standard preset, the
 * handelingen, notifications delivered after commit to a stand-in Notificaties API) under mixed
 * reads and writes for N minutes, on a fresh PostgreSQL database seeded with `--zaken` zaken.
 *
 *   npm run bench:soak -- --minutes 20 [--connections 16] [--zaken 10000]
 *
 * Per minute: requests per second, p50/p99 latency, errors (any answer other than 2xx, timeouts,
 * connection errors), the registry's RSS (sampled every second) and the outbox backlog. At the end
 * the load stops and the backlog is left to drain. Exits non-zero on any error or a backlog left
 * after the drain. The table goes to stdout and to `bench/results/soak-<time>.md`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import knexFactory from 'knex';
import { consoleLogger, createRegistry, notifications, signZgwJwt, staticCatalog } from '../src/index.js';
import { seed } from './api/seed.js';
import { RSIN, SECRET, ZAAKTYPEN, benchCatalog, statustypeUrl, zaaktypeUrl } from './api/world.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '20' },
    connections: { type: 'string', default: '16' },
    zaken: { type: 'string', default: '10000' },
  },
});
const minutes = Number(values.minutes);
const connections = Number(values.connections);
const zaken = Number(values.zaken);
for (const [name, value] of Object.entries({ minutes, connections, zaken })) {
  if (!(value > 0)) throw new Error(`--${name} must be a positive number, not ${JSON.stringify(values[name as keyof typeof values])}`);
}
const SERVER = process.env.PG_BENCH_URL ?? process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const log = (line: string) => console.error(line);
const here = new URL('.', import.meta.url).pathname;

const children = new Set<ChildProcess>();
process.once('exit', () => children.forEach((child) => child.kill('SIGTERM')));
function start(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const port = /ready (\d+)/.exec(String(chunk))?.[1];
      if (port) resolve({ child, base: `http://127.0.0.1:${port}` });
    });
  });
}

function rssMegabytes(pid: number): number {
  const kilobytes = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kilobytes) / 1024;
}

// A fresh database: the run starts from a known state, whatever an earlier run left.
const database = Object.assign(new URL(SERVER), { pathname: '/zaakregister_soak' }).toString();
const admin = knexFactory({ client: 'pg', connection: SERVER, pool: { min: 0, max: 1 } });
await admin.raw('drop database if exists zaakregister_soak with (force)');
await admin.raw('create database zaakregister_soak');
await admin.destroy();
log(`seeding ${zaken.toLocaleString('en')} zaken`);
// The migrations of the server's plugins (the notifications' outbox kanaal included) run here, before the seed.
const setup = await createRegistry({
  storage: database,
  catalog: staticCatalog(benchCatalog()),
  logger: consoleLogger('warn'),
  outbox: { dispatch: false },
  plugins: [notifications({ url: 'http://127.0.0.1:9/api/v1', auth: { clientId: 'soak', secret: SECRET }, registerKanaal: false })],
});
await seed(setup.services.storage.knex, zaken, log);
const sample = (await setup.services.storage.knex('zaak').orderByRaw('random()').limit(500).select('uuid', 'zaaktype')) as { uuid: string; zaaktype: string }[];
await setup.close();

const notificaties = await start(`${here}api/notificaties-server.ts`, {});
const registry = await start(`${here}api/registry-server.ts`, { DATABASE: database, NOTIFICATIES_URL: `${notificaties.base}/api/v1` });
const pid = registry.child.pid!;

const authorization = `Bearer ${await signZgwJwt('bench-alles', SECRET)}`;
const api = '/zaken/api/v1';
const json = (method: 'POST' | 'PATCH', path: string, body: unknown): autocannon.Request => ({
  method,
  path: api + path,
  body: JSON.stringify(body),
  headers: { authorization, 'content-type': 'application/json' },
});
const typeNumber = (url: string) => Number(url.slice(-12));
// Ten requests a cycle, three of them writes: details, pages, a search, a new zaak, a status, a PATCH.
const requests: autocannon.Request[] = sample.flatMap((zaak, i) => [
  { method: 'GET', path: `${api}/zaken/${zaak.uuid}` },
  { method: 'GET', path: `${api}/zaken?page=${1 + (i % 10)}` },
  { method: 'GET', path: `${api}/statussen?zaak=${encodeURIComponent(`${registry.base}${api}/zaken/${zaak.uuid}`)}` },
  { method: 'GET', path: `${api}/zaken/${sample[(i + 7) % sample.length].uuid}` },
  json('POST', '/zaken/_zoek', { zaaktype__in: [zaak.zaaktype, zaaktypeUrl((i + 3) % ZAAKTYPEN)] }),
  { method: 'GET', path: `${api}/rollen?page=${1 + (i % 5)}` },
  json('POST', '/zaken', { zaaktype: zaaktypeUrl(i % ZAAKTYPEN), bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, startdatum: '2026-01-01' }),
  json('POST', '/statussen', {
    zaak: `${registry.base}${api}/zaken/${zaak.uuid}`,
    statustype: statustypeUrl(typeNumber(zaak.zaaktype), 1),
    datumStatusGezet: `2026-01-01T10:${String(i % 60).padStart(2, '0')}:00Z`,
  }),
  json('PATCH', `/zaken/${zaak.uuid}`, { toelichting: `soak ${i}` }),
  { method: 'GET', path: `${api}/zaken/${zaak.uuid}/audittrail` },
]);

const outbox = knexFactory({ client: 'pg', connection: database, pool: { min: 0, max: 1 } });
const backlog = async () => Number((await outbox('outbox').where('status', 'pending').count({ n: '*' }))[0].n);

interface Minute {
  minute: number;
  seconds: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  rssMax: number;
  rssEnd: number;
  backlog: number;
}
const rows: Minute[] = [];
let rssSamples: number[] = [];
const sampler = setInterval(() => rssSamples.push(rssMegabytes(pid)), 1000);
log(`soak: ${minutes} min, ${connections} connections, registry pid ${pid}`);
let next = 0;
for (let minute = 1; minute <= Math.ceil(minutes); minute++) {
  const seconds = Math.round(Math.min(60, (minutes - (minute - 1)) * 60));
  rssSamples = [];
  const result = await autocannon({
    url: registry.base,
    connections,
    duration: seconds,
    timeout: 30,
    headers: { authorization },
    requests,
    // Each connection starts at its own place in the cycle (and a new one each minute).
    setupClient: (client) => {
      const shift = (next++ * 37) % requests.length;
      (client as unknown as { setRequests(r: autocannon.Request[]): void }).setRequests([...requests.slice(shift), ...requests.slice(0, shift)]);
    },
  });
  const row: Minute = {
    minute,
    seconds,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    rssMax: Math.max(...rssSamples, rssMegabytes(pid)),
    rssEnd: rssMegabytes(pid),
    backlog: await backlog(),
  };
  rows.push(row);
  log(`  minute ${minute}: ${row.requestsPerSecond} req/s, p99 ${row.p99} ms, ${row.errors} errors, RSS ${row.rssEnd.toFixed(0)} MB, backlog ${row.backlog}`);
}
clearInterval(sampler);

// The load has stopped: what is still pending must be delivered.
const drainStarted = performance.now();
let left = await backlog();
while (left > 0 && performance.now() - drainStarted < 120_000) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  left = await backlog();
}
const drainSeconds = (performance.now() - drainStarted) / 1000;
// Delivered rows leave the outbox; what gave up stays as `failed`.
const failedDeliveries = Number((await outbox('outbox').where('status', 'failed').count({ n: '*' }))[0].n);
const delivered = Number(await (await fetch(`${notificaties.base}/received`)).text());
await outbox.destroy();

const errors = rows.reduce((sum, row) => sum + row.errors, 0);
// Growth after warm-up: from the end of the first minute (JIT, pools and caches filled) to the end.
const warm = rows[0].rssEnd;
const last = rows.at(-1)!.rssEnd;
const table = [
  `Soak run, ${new Date().toISOString().slice(0, 10)}: ${minutes} min, ${connections} connections, ${zaken.toLocaleString('en')} zaken seeded, ` +
    `${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' / ')}.`,
  '',
  '| minute | seconds | req/s | p50 ms | p99 ms | errors | RSS max MB | RSS end MB | outbox backlog |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.minute} | ${r.seconds} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.rssMax.toFixed(0)} | ${r.rssEnd.toFixed(0)} | ${r.backlog} |`),
  '',
  `- errors: ${errors}`,
  `- RSS after the first minute ${warm.toFixed(0)} MB, at the end ${last.toFixed(0)} MB (${last - warm >= 0 ? '+' : ''}${(last - warm).toFixed(0)} MB)`,
  `- outbox backlog when the load stopped: ${rows.at(-1)!.backlog}; after ${drainSeconds.toFixed(1)} s of draining: ${left}; failed deliveries: ${failedDeliveries}; notifications received: ${delivered}`,
].join('\n');
console.log(table);
mkdirSync(`${here}results`, { recursive: true });
writeFileSync(`${here}results/soak-${new Date().toISOString().replace(/[:.]/g, '-')}.md`, table + '\n');

await new Promise<void>((resolve) => {
  registry.child.removeAllListeners('exit');
  registry.child.once('exit', () => resolve());
  registry.child.kill('SIGTERM');
});
notificaties.child.removeAllListeners('exit');
notificaties.child.kill('SIGTERM');
process.exitCode = errors > 0 || left > 0 || failedDeliveries > 0 ? 1 : 0;
