/**
 * The registry against a bare Express + pg baseline, on one seeded database per size.
 *
 *   npx tsx bench/api/run.ts [--sizes 10000,1000000] [--duration 5] [--warmup 3] [--rounds 1] [--backend postgres|pglite] [--connections 1,16]
 *
 * Servers run in child processes; this process drives the load (autocannon) and prints one Markdown
 * table per size, also written with the machine facts as JSON to bench/results/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import knexFactory, { type Knex } from 'knex';
import { consoleLogger, createRegistry, openStorage, signZgwJwt, staticCatalog } from '../../src/index.js';
import { LIMITED_ZAAKTYPEN, RSIN, SECRET, ZAAKTYPEN, benchCatalog, statustypeUrl, zaaktypeUrl } from './world.js';
import { seed, type SeedReport } from './seed.js';
import { coreMigrations } from '../../src/storage/migrations/index.js';

const { values } = parseArgs({
  // `npm run bench -- 5000` passes a count meant for the other benchmarks: ignored here.
  allowPositionals: true,
  options: {
    sizes: { type: 'string' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    backend: { type: 'string', default: 'postgres' },
    connections: { type: 'string', default: '1,16' },
    rounds: { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
const backend = values.backend === 'pglite' ? 'pglite' : 'postgres';
const sizes = (values.sizes ?? (backend === 'pglite' ? '10000' : '10000,1000000')).split(',').map(Number);
const duration = Number(values.duration);
const warmup = Number(values.warmup);
const connectionCounts = values.connections!.split(',').map(Number);
const roundCount = Math.max(1, Number(values.rounds));
const SERVER = process.env.PG_BENCH_URL ?? process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const log = (line: string) => console.error(line);

interface Scenario {
  name: string;
  /**
   * Which server: the registry, the registry that publishes notifications (`notifying`), one that
   * only enqueues them (`enqueuing`: its deliveries left to another process), the bare baseline, or
   * the ceiling (pre-rendered JSON pages).
   */
  target: 'registry' | 'notifying' | 'enqueuing' | 'baseline' | 'ceiling';
  /** The baseline scenario it is compared with; of several, the fastest at the same connections. */
  baseline?: string | string[];
  requests: autocannon.Request[];
  headers?: Record<string, string>;
  /** Status class that counts as success (304 scenarios). */
  expect?: '2xx' | '3xx';
}

interface Measurement {
  scenario: string;
  target: string;
  connections: number;
  requestsPerSecond: number;
  /**
   * Mean latency in ms by Little's law (connections / throughput; each connection waits for its
   * answer before the next request): autocannon records whole milliseconds, too coarse below a few ms.
   */
  mean: number;
  /** CPU ms the server process spent per request (its database work not included). */
  serverCpu?: number;
  /** CPU ms PostgreSQL's processes on this machine spent per request (all of them: backends, WAL writer, autovacuum). */
  databaseCpu?: number;
  /** CPU ms this process (autocannon, the load) spent per request: whether the load, not a server, filled a core. */
  loadCpu: number;
  p50: number;
  p90: number;
  p99: number;
  failed: number;
  baseline?: string | string[];
  /** `enqueuing`: the outbox rows its cell left, then delivered by a dispatcher alone (the notifying registry's). */
  drained?: { rows: number; seconds: number; cpuPerDelivery?: number };
}

// ---------------------------------------------------------------------------------------------- data

function databaseUrl(size: number): string {
  const url = new URL(SERVER);
  url.pathname = `/zaakregister_bench_${size}`;
  return url.toString();
}

/** What a seeded database was made with: the size and the core's migrations as they are now. */
const SEED_MARK = (size: number) =>
  `${size}:${createHash('sha1').update(coreMigrations.map((m) => m.name + m.up.toString()).join('\n') + seed.toString()).digest('hex').slice(0, 16)}`;

/** The storage for a size, seeded once and reused while it was seeded with this size and schema. */
async function prepare(size: number): Promise<{ database: string; seeded?: SeedReport }> {
  const database = backend === 'pglite' ? `bench/.data/pglite-${size}` : databaseUrl(size);
  if (backend === 'postgres') {
    const admin = knexFactory({ client: 'pg', connection: SERVER, pool: { min: 0, max: 1 } });
    const name = `zaakregister_bench_${size}`;
    const exists = (await admin.raw('select 1 from pg_database where datname = ?', [name])).rows.length > 0;
    if (exists && (await seedMark(database)) === SEED_MARK(size)) {
      await admin.destroy();
      return { database };
    }
    await admin.raw('drop database if exists ?? with (force)', [name]);
    await admin.raw('create database ??', [name]);
    await admin.destroy();
  } else if ((await seedMark(database)) !== SEED_MARK(size)) {
    // A directory from an interrupted seed, or from another schema: start over.
    rmSync(database, { recursive: true, force: true });
  }
  // The registry's own migrations (core and the standard preset's plugins), then the data.
  const registry = await createRegistry({ storage: database, catalog: staticCatalog(benchCatalog()), logger: consoleLogger('warn') });
  const knex = registry.services.storage.knex;
  const existing = await knex.schema.hasTable('bench_seed').then((has) => (has ? knex('bench_seed').first('mark') : undefined));
  let seeded: SeedReport | undefined;
  if (existing?.mark !== SEED_MARK(size)) {
    log(`seeding ${size.toLocaleString('en')} zaken (${backend})`);
    seeded = await seed(knex, size, log);
    await knex.schema.createTable('bench_seed', (t) => t.string('mark'));
    await knex('bench_seed').insert({ mark: SEED_MARK(size) });
    log(`  ${seeded.rows.toLocaleString('en')} rows in ${seeded.seconds.toFixed(1)} s: ${seeded.rowsPerSecond.toLocaleString('en')} rows/s`);
  }
  await registry.close();
  return { database, seeded };
}

/** About 1,000 zaken spread over the table (read before the registry opens a PGlite directory). */
async function sampleZaken(database: string, size: number): Promise<{ uuid: string; zaaktype: string }[]> {
  const storage = await openStorage(database);
  try {
    const step = Math.max(1, Math.floor(size / 1000));
    // Seeded zaken only: a reset comes later, after the warm-up.
    return await storage.knex('zaak').whereRaw('id % ? = 0', [step]).where('identificatie', 'like', 'BENCH-%').orderBy('id').limit(1000).select('uuid', 'zaaktype');
  } finally {
    await storage.close();
  }
}

/** Back to the seeded state: what earlier runs created (zaken, statussen, audit rows) goes. */
async function reset(database: string): Promise<void> {
  const storage = await openStorage(database);
  try {
    const knex = storage.knex;
    await knex('zaak').whereNot('identificatie', 'like', 'BENCH-%').delete();
    await knex('status').where('datum_status_gezet', '>=', '2026-01-01').delete();
    await knex('audittrail').delete();
    await knex('outbox').delete();
    // index_cleanup: below 2% of pages with dead rows PostgreSQL skips the indexes and leaves those
    // pages not all-visible, so the index-only scans of the reads would visit the rows again.
    await knex.raw('vacuum (index_cleanup on, analyze)');
  } finally {
    await storage.close();
  }
}

async function seedMark(database: string): Promise<string | undefined> {
  if (backend === 'pglite' && !existsSync(database)) return undefined;
  const storage = await openStorage(database);
  try {
    return (await storage.knex.schema.hasTable('bench_seed')) ? String((await storage.knex('bench_seed').first('mark'))?.mark) : undefined;
  } catch {
    return undefined;
  } finally {
    await storage.close();
  }
}

// ---------------------------------------------------------------------------------------------- servers

/** Every server started: stopped when this process ends, also when one of them fails to start. */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGTERM');
});

function start(script: string, database: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env, DATABASE: database }, stdio: ['ignore', 'pipe', 'inherit'] });
  started.add(child);
  child.once('exit', () => started.delete(child));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const port = /ready (\d+)/.exec(String(chunk))?.[1];
      if (port) resolve({ child, base: `http://127.0.0.1:${port}` });
    });
  });
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

// ---------------------------------------------------------------------------------------------- load

/** Each connection starts its own stretch of the request list: clients never walk one zaak in lockstep. */
function staggered(requests: autocannon.Request[], connections: number) {
  let next = 0;
  return (client: autocannon.Client) => {
    const shift = Math.floor((next++ * requests.length) / connections) % requests.length;
    (client as unknown as { setRequests(r: autocannon.Request[]): void }).setRequests([...requests.slice(shift), ...requests.slice(0, shift)]);
  };
}

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const CLOCK_TICKS = 100;

/** CPU time a process has used (Linux, in ms): the server's own cost, whatever share of the cores it got. */
function cpuMilliseconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * CPU ms of each PostgreSQL process on this machine (the bench's server is local; any other cluster
 * on it counts too), by pid: what the database spends, beside the server process, on the cores they
 * share. Undefined on PGlite (in the server process) or without /proc.
 */
function databaseCpu(): Map<string, number> | undefined {
  if (backend === 'pglite') return undefined;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const byPid = new Map<string, number>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it ended meanwhile
    }
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
    const [utime, stime] = stat.slice(stat.lastIndexOf(') ') + 2).split(' ').slice(11, 13).map(Number);
    byPid.set(entry, ((utime + stime) * 1000) / CLOCK_TICKS);
  }
  return byPid.size ? byPid : undefined;
}

/**
 * The CPU ms PostgreSQL spent between two `databaseCpu` readings, by the processes alive at the
 * second. One that ended in between (a backend of a pool that shrank, a parallel worker, an
 * autovacuum worker) is missed: counted when its parent reaps it, it would bring all it ever used
 * (counted so in one run, they lifted the write cells' figures up to fourfold).
 */
function databaseCpuBetween(before: Map<string, number> | undefined, after: Map<string, number> | undefined): number | undefined {
  if (!before || !after) return undefined;
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}

async function measure(server: { base: string; child: ChildProcess }, scenario: Scenario, connections: number): Promise<Measurement> {
  const options = { url: server.base, connections, requests: scenario.requests, headers: scenario.headers, timeout: 30 };
  // Warm-up, the same for every server: JIT, pools, caches. One second measured the registry's
  // compilation more than its steady state (0.6x of it on pages at 16 connections; the bare servers
  // reach theirs within one second).
  await autocannon({ ...options, duration: warmup, setupClient: staggered(scenario.requests, connections) });
  const cpuBefore = cpuMilliseconds(server.child.pid!);
  const databaseBefore = databaseCpu();
  const loadBefore = process.cpuUsage();
  const result = await autocannon({ ...options, duration, setupClient: staggered(scenario.requests, connections) });
  const loadSpent = process.cpuUsage(loadBefore);
  const cpuAfter = cpuMilliseconds(server.child.pid!);
  const databaseSpent = databaseCpuBetween(databaseBefore, databaseCpu());
  const expected = scenario.expect ?? '2xx';
  const failed = result.errors + result.timeouts + ['1xx', '2xx', '3xx', '4xx', '5xx'].filter((c) => c !== expected).reduce((sum, c) => sum + ((result as any)[c] ?? 0), 0);
  return {
    scenario: scenario.name,
    target: scenario.target,
    connections,
    requestsPerSecond: Math.round(result.requests.average),
    mean: (connections * 1000) / result.requests.average,
    serverCpu: cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / result.requests.total,
    databaseCpu: databaseSpent === undefined ? undefined : databaseSpent / result.requests.total,
    loadCpu: (loadSpent.user + loadSpent.system) / 1000 / result.requests.total,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    failed,
    baseline: scenario.baseline,
  };
}

/**
 * Stops `child` (SIGSTOP) where none of its transactions is open: a write the cell's last requests
 * began would otherwise hold its locks until the process runs again, and the next `reset` would wait
 * for it. Stopped first, then checked (checked before stopping, a dispatcher working off a backlog
 * kept some claim running at every look): statements already sent are waited for (a stopped process
 * sends no more), and a transaction left open between two statements is resumed and stopped again a
 * moment later. Every client of the database counts; between cells the other servers are idle.
 */
async function pause(database: string, child: ChildProcess): Promise<void> {
  const knex: Knex = knexFactory({ client: 'pg', connection: database, pool: { min: 0, max: 1 } });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    for (let attempt = 1; ; attempt++) {
      child.kill('SIGSTOP');
      for (let waited = 0; ; waited += 20) {
        // Clients only: an autovacuum worker on the tables the cell wrote is also 'active'.
        const busy = await knex.raw(`select state, left(query, 200) as query from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
          and backend_type = 'client backend' and (state = 'active' or state like 'idle in transaction%')`);
        if (!busy.rows.length) return;
        if (busy.rows.some((row: { state: string }) => row.state !== 'active')) break;
        if (waited > 10_000) throw new Error(`a statement ran on for 10 s after its process stopped: ${JSON.stringify(busy.rows)}`);
        await sleep(20);
      }
      if (attempt === 200) throw new Error('a transaction stayed open at 200 tries to stop its process');
      child.kill('SIGCONT');
      await sleep(20);
    }
  } finally {
    await knex.destroy();
  }
}

/**
 * Delivers what an `enqueuing` cell (with its warm-up) left in the outbox with `worker` (the notifying registry: its
 * dispatcher is what `zaakregister deliver` runs), resumed for it: how many rows, how long, and the
 * worker's CPU per delivery.
 */
async function drain(database: string, worker: ChildProcess): Promise<NonNullable<Measurement['drained']>> {
  const knex: Knex = knexFactory({ client: 'pg', connection: database, pool: { min: 0, max: 1 } });
  const pending = async () => Number((await knex('outbox').where('status', 'pending').count({ n: '*' }))[0].n);
  try {
    const rows = await pending();
    if (!rows) throw new Error('the enqueuing registry left no outbox row: its row measured writes that enqueue nothing');
    const cpuBefore = cpuMilliseconds(worker.pid!);
    const started = performance.now();
    worker.kill('SIGCONT');
    while ((await pending()) > 0) {
      if (performance.now() - started > 300_000) throw new Error('the outbox was not delivered within 5 minutes');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpuMilliseconds(worker.pid!);
    await pause(database, worker);
    const failed = Number((await knex('outbox').where('status', 'failed').count({ n: '*' }))[0].n);
    if (failed) throw new Error(`${failed} of the enqueuing registry's notifications failed to be delivered`);
    return { rows, seconds, cpuPerDelivery: cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / rows };
  } finally {
    await knex.destroy();
  }
}

/** The ceiling's two ways of sending a page of stored JSON (see `ceiling-server.ts`). */
const CEILINGS = ['ceiling: page 1-10, pre-rendered JSON (string_agg)', 'ceiling: page 1-10, pre-rendered JSON (rows joined in Node)'];

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

async function scenarios(sample: { uuid: string; zaaktype: string }[], registryBase: string): Promise<Scenario[]> {
  const alles = { authorization: `Bearer ${await signZgwJwt('bench-alles', SECRET)}` };
  const beperkt = { authorization: `Bearer ${await signZgwJwt('bench-beperkt', SECRET)}` };
  const api = `${registryBase}/zaken/api/v1`;
  const get = async (path: string, headers: Record<string, string>) => {
    const response = await fetch(api + path, { headers });
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return { body: (await response.json()) as any, etag: response.headers.get('etag') };
  };

  const etags = await Promise.all(sample.slice(0, 200).map(async (z) => ({ uuid: z.uuid, etag: (await get(`/zaken/${z.uuid}`, alles)).etag! })));
  const pages = async (headers: Record<string, string>) => {
    const count = (await get('/zaken', headers)).body.count as number;
    return { count, last: Math.ceil(count / 100) };
  };
  const all = await pages(alles);
  const limited = await pages(beperkt);
  const firstPages = (last: number) => Array.from({ length: Math.min(10, last) }, (_, i) => ({ method: 'GET' as const, path: `/zaken/api/v1/zaken?page=${i + 1}` }));
  const deep = Math.ceil(all.last / 2);
  const typeNumber = (url: string) => Number(url.slice(-12));
  const zaakBody = (i: number) => ({ zaaktype: zaaktypeUrl(i % ZAAKTYPEN), bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, startdatum: '2026-01-01' });
  return [
    { name: 'baseline: select one by uuid', target: 'baseline', requests: sample.map((z) => ({ method: 'GET', path: `/zaken/${z.uuid}` })) },
    { name: 'baseline: page 1-10 + count(*)', target: 'baseline', requests: firstPages(all.last).map((r) => ({ ...r, path: r.path.replace('/zaken/api/v1', '') })) },
    { name: 'baseline: deep page, late row lookup', target: 'baseline', requests: [{ method: 'GET', path: `/zaken-late?page=${deep}` }] },
    { name: CEILINGS[0], target: 'ceiling', requests: firstPages(all.last).map((r) => ({ ...r, path: r.path.replace('/zaken/api/v1', '') })) },
    { name: CEILINGS[1], target: 'ceiling', requests: firstPages(all.last).map((r) => ({ ...r, path: r.path.replace('/zaken/api/v1/zaken', '/rows') })) },

    // Lists are compared with the faster ceiling: the naive baseline (page + count(*)) is long beaten.
    { name: 'GET /zaken pages 1-10 (all zaaktypen)', target: 'registry', baseline: CEILINGS, requests: firstPages(all.last), headers: alles },
    { name: 'GET /zaken pages 1-10 (10 zaaktypen)', target: 'registry', baseline: CEILINGS, requests: firstPages(limited.last), headers: beperkt },
    {
      name: `GET /zaken?page=${deep} (offset ${((deep - 1) * 100).toLocaleString('en')})`,
      target: 'registry',
      baseline: 'baseline: deep page, late row lookup',
      requests: [{ method: 'GET', path: `/zaken/api/v1/zaken?page=${deep}` }],
      headers: alles,
    },
    {
      name: 'GET /zaken?zaaktype&archiefstatus (two filters)',
      target: 'registry',
      baseline: 'baseline: page 1-10 + count(*)',
      requests: Array.from({ length: 10 }, (_, k) => ({ method: 'GET', path: `/zaken/api/v1/zaken?zaaktype=${encodeURIComponent(zaaktypeUrl(k * 7))}&archiefstatus=gearchiveerd` })),
      headers: alles,
    },
    {
      name: 'POST /zaken/_zoek zaaktype__in (10)',
      target: 'registry',
      baseline: 'baseline: page 1-10 + count(*)',
      requests: [{ method: 'POST', path: '/zaken/api/v1/zaken/_zoek', ...json({ zaaktype__in: LIMITED_ZAAKTYPEN }) }],
      headers: alles,
    },
    {
      // A town-sized box (10 km by 10 km around Amersfoort) in RD over geometries stored in CRS84.
      name: 'GET /zaken?bbox (10 km box in RD)',
      target: 'registry',
      baseline: 'baseline: page 1-10 + count(*)',
      requests: [{ method: 'GET', path: `/zaken/api/v1/zaken?bbox=150000,460000,160000,470000&bbox-crs=${encodeURIComponent('http://www.opengis.net/def/crs/EPSG/9.9.1/28992')}` }],
      headers: alles,
    },
    { name: 'GET /zaken/{uuid}', target: 'registry', baseline: 'baseline: select one by uuid', requests: sample.map((z) => ({ method: 'GET', path: `/zaken/api/v1/zaken/${z.uuid}` })), headers: alles },
    {
      name: 'GET /zaken/{uuid} If-None-Match (304)',
      target: 'registry',
      baseline: 'baseline: select one by uuid',
      requests: etags.map((z) => ({ method: 'GET', path: `/zaken/api/v1/zaken/${z.uuid}`, headers: { ...alles, 'if-none-match': z.etag } })),
      headers: alles,
      expect: '3xx',
    },
    // Writes last, the baseline's too: every read runs on the table as `reset` left it (vacuumed,
    // its visibility map set), whichever server it measures.
    { name: 'baseline: insert one', target: 'baseline', requests: [{ method: 'POST', path: '/zaken', ...json(zaakBody(0)) }] },
    {
      name: 'POST /zaken',
      target: 'registry',
      baseline: 'baseline: insert one',
      requests: Array.from({ length: 100 }, (_, i) => ({ method: 'POST', path: '/zaken/api/v1/zaken', ...json(zaakBody(i)), headers: { ...alles, 'content-type': 'application/json' } })),
      headers: alles,
    },
    {
      name: 'POST /statussen',
      target: 'registry',
      baseline: 'baseline: insert one',
      requests: sample.slice(0, 100).map((z, i) => ({
        method: 'POST',
        path: '/zaken/api/v1/statussen',
        ...json({ zaak: `${api}/zaken/${z.uuid}`, statustype: statustypeUrl(typeNumber(z.zaaktype), 1), datumStatusGezet: `2026-01-01T10:00:${String(i % 60).padStart(2, '0')}Z` }),
        headers: { ...alles, 'content-type': 'application/json' },
      })),
      headers: alles,
    },
    {
      // An API instance beside `zaakregister deliver` workers ("dispatch": false): each write stores
      // its outbox row and the instance delivers nothing. What it left is delivered after each cell
      // by a dispatcher alone (see `drain`), and reported with it.
      name: 'POST /zaken, enqueuing (outbox row, delivered by a worker)',
      target: 'enqueuing',
      baseline: 'baseline: insert one',
      requests: Array.from({ length: 100 }, (_, i) => ({ method: 'POST', path: '/zaken/api/v1/zaken', ...json(zaakBody(i)), headers: { ...alles, 'content-type': 'application/json' } })),
      headers: alles,
    },
    {
      // What a registry that publishes notifications does: an outbox row in each write's transaction,
      // delivered after commit to a Notificaties API (bench/api/notificaties-server.ts, on the same cores).
      // Last: the deliveries it leaves pending go on after its cells, until the next round's reset.
      name: 'POST /zaken, notifying (outbox row, delivered)',
      target: 'notifying',
      baseline: 'baseline: insert one',
      requests: Array.from({ length: 100 }, (_, i) => ({ method: 'POST', path: '/zaken/api/v1/zaken', ...json(zaakBody(i)), headers: { ...alles, 'content-type': 'application/json' } })),
      headers: alles,
    },
  ];
}

// ---------------------------------------------------------------------------------------------- report

/** A process's resident set (Linux), in MB. */
function residentMegabytes(pid: number): number | undefined {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Math.round(Number(line[1]) / 1024) : undefined;
}

const ms = (value: number) => (value < 10 ? value.toFixed(1) : String(Math.round(value)));

function table(measurements: Measurement[]): string {
  const lines = [
    '| scenario | conn. | req/s | mean ms | p50 ms | p90 ms | p99 ms | server CPU ms/req | database CPU ms/req | load CPU ms/req | req/s vs baseline | mean vs baseline |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const m of measurements) {
    const names = [m.baseline ?? []].flat();
    const base = measurements.filter((b) => names.includes(b.scenario) && b.connections === m.connections).sort((a, b) => b.requestsPerSecond - a.requestsPerSecond)[0];
    const ratio = (a: number, b: number) => (b ? `${(a / b).toFixed(2)}x` : '–');
    lines.push(
      `| ${m.scenario}${m.failed ? ` (**${m.failed} failed**)` : ''} | ${m.connections} | ${m.requestsPerSecond.toLocaleString('en')} | ${m.mean.toFixed(2)} | ${ms(m.p50)} | ${ms(m.p90)} | ${ms(m.p99)} | ${m.serverCpu === undefined ? '–' : m.serverCpu.toFixed(3)} | ${m.databaseCpu === undefined ? '–' : m.databaseCpu.toFixed(3)} | ${m.loadCpu.toFixed(3)} | ${base ? ratio(m.requestsPerSecond, base.requestsPerSecond) : ''} | ${base ? ratio(m.mean, base.mean) : ''} |`,
    );
  }
  return lines.join('\n');
}

async function machine(): Promise<Record<string, unknown>> {
  const knex: Knex = knexFactory({ client: 'pg', connection: SERVER, pool: { min: 0, max: 1 } });
  try {
    const version = backend === 'postgres' ? String((await knex.raw('show server_version')).rows[0].server_version) : 'PGlite';
    return { cores: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, database: backend === 'postgres' ? `PostgreSQL ${version}` : version };
  } finally {
    await knex.destroy();
  }
}

/** Per cell (scenario and connections), the round whose throughput is the median. */
function medians(rounds: Measurement[][]): Measurement[] {
  return rounds[0].map((first) => {
    const cell = rounds.map((round) => round.find((m) => m.scenario === first.scenario && m.connections === first.connections)!);
    return cell.sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor((cell.length - 1) / 2)];
  });
}

const facts = await machine();
mkdirSync('bench/results', { recursive: true });
for (const size of sizes) {
  const { database, seeded } = await prepare(size);
  const sample = await sampleZaken(database, size);
  const registry = await start('bench/api/registry-server.ts', database);
  const notificaties = backend === 'postgres' ? await start('bench/api/notificaties-server.ts', database) : undefined;
  const notifying = notificaties ? await start('bench/api/registry-server.ts', database, { NOTIFICATIES_URL: `${notificaties.base}/api/v1` }) : undefined;
  const enqueuing = notificaties ? await start('bench/api/registry-server.ts', database, { NOTIFICATIES_URL: `${notificaties.base}/api/v1`, OUTBOX_DISPATCH: 'false' }) : undefined;
  // Stopped (SIGSTOP) but for its own cells and the drains: its dispatcher would deliver the other
  // writers' outbox rows beside their cells.
  notifying?.child.kill('SIGSTOP');
  /** The notifying registry runs for `cells` alone. */
  const withNotifying = async <T>(cells: () => Promise<T>): Promise<T> => {
    notifying!.child.kill('SIGCONT');
    try {
      return await cells();
    } finally {
      await pause(database, notifying!.child);
    }
  };
  /** Notifications the Notificaties API has received so far (the drains' too). */
  const received = async () => Number(await (await fetch(`${notificaties!.base}/received`)).text());
  const baseline = backend === 'postgres' ? await start('bench/api/baseline-server.ts', database) : undefined;
  const ceiling = backend === 'postgres' ? await start('bench/api/ceiling-server.ts', database) : undefined;
  const rounds: Measurement[][] = [];
  let rss: number | undefined;
  let delivered: number | undefined;
  try {
    // Every registry path compiled before any cell is measured: the first cell measured ran at half
    // the rate of the same cell later in the run, while the bare servers have one path each.
    for (const scenario of await scenarios(sample, registry.base)) {
      const warmed = { registry, notifying, enqueuing }[scenario.target as 'registry' | 'notifying' | 'enqueuing'];
      if (!warmed || (scenario.target !== 'registry' && values.only && !scenario.name.includes(values.only))) continue;
      const warm = () => autocannon({ url: warmed.base, connections: 4, duration: warmup, requests: scenario.requests, headers: scenario.headers });
      await (scenario.target === 'notifying' ? withNotifying(warm) : warm());
    }
    for (let round = 1; round <= roundCount; round++) {
      // Every round from the seeded state, its ETags and statuses made anew.
      await reset(database);
      const measured: Measurement[] = [];
      for (const scenario of await scenarios(sample, registry.base)) {
        if (values.only && !scenario.name.includes(values.only) && ['registry', 'notifying', 'enqueuing'].includes(scenario.target)) continue;
        const server = { registry, notifying, enqueuing, baseline, ceiling }[scenario.target];
        if (!server) continue;
        for (const connections of connectionCounts) {
          let m: Measurement;
          if (scenario.target === 'notifying') {
            const before = await received();
            m = await withNotifying(() => measure(server, scenario, connections));
            delivered = (delivered ?? 0) + (await received()) - before;
          } else {
            m = await measure(server, scenario, connections);
          }
          if (scenario.target === 'enqueuing') m.drained = await drain(database, notifying!.child);
          log(`  ${roundCount > 1 ? `[${round}/${roundCount}] ` : ''}${m.scenario} @${connections}: ${m.requestsPerSecond} req/s, mean ${m.mean.toFixed(2)} ms, p50 ${m.p50} ms, p99 ${m.p99} ms, server CPU ${m.serverCpu?.toFixed(3)} ms/req, database CPU ${m.databaseCpu?.toFixed(3)} ms/req, load CPU ${m.loadCpu.toFixed(3)} ms/req${m.failed ? `, ${m.failed} failed` : ''}`);
          measured.push(m);
        }
      }
      rounds.push(measured);
    }
    rss = residentMegabytes(registry.child.pid!);
    if (delivered === 0) throw new Error('the notifying registry delivered no notification during its cells: its row measured writes that publish nothing');
  } finally {
    await stop(registry.child);
    if (notifying) notifying.child.kill('SIGCONT');
    if (notifying) await stop(notifying.child);
    if (enqueuing) await stop(enqueuing.child);
    if (notificaties) await stop(notificaties.child);
    if (baseline) await stop(baseline.child);
    if (ceiling) await stop(ceiling.child);
  }
  const header = `### ${size.toLocaleString('en')} zaken, ${facts.database}, ${facts.cores} cores (${facts.cpu}), Node ${facts.node}, ${duration} s per cell`;
  const seedLine = seeded ? `\nSeeded ${seeded.rows.toLocaleString('en')} rows in ${seeded.seconds.toFixed(1)} s (${seeded.rowsPerSecond.toLocaleString('en')} rows/s).\n` : '';
  const rssLine = rss === undefined ? '' : `\nRegistry RSS after all scenarios (mixed reads and writes): ${rss} MB.\n`;
  const deliveredLine = delivered === undefined ? '' : `\nNotifications the notifying registry delivered during its cells: ${delivered.toLocaleString('en')}.\n`;
  const measurements = medians(rounds);
  const drains = measurements.filter((m) => m.drained).map(({ connections, drained: d }) => `${d!.rows.toLocaleString('en')} rows after ${connections} connection(s) in ${d!.seconds.toFixed(1)} s (${Math.round(d!.rows / d!.seconds).toLocaleString('en')}/s${d!.cpuPerDelivery === undefined ? '' : `, ${d!.cpuPerDelivery.toFixed(3)} ms of its CPU each`})`);
  const drainedLine = drains.length ? `\nThe enqueuing cells' outbox rows, delivered afterwards by a dispatcher alone: ${drains.join('; ')}.\n` : '';
  const roundsLine = roundCount > 1 ? `\nEach cell the round of median throughput of ${roundCount} rounds (servers kept, data reset between rounds).\n` : '';
  const markdown = `${header}\n${seedLine}${roundsLine}\n${table(measurements)}\n${rssLine}${deliveredLine}${drainedLine}`;
  console.log(`\n${markdown}`);
  const file = `bench/results/api-${backend}-${size}`;
  writeFileSync(`${file}.md`, markdown);
  writeFileSync(`${file}.json`, JSON.stringify({ size, backend, machine: facts, durationSeconds: duration, seeded, measurements, rounds, registryRssMegabytes: rss, notificationsDelivered: delivered }, null, 2));
}
