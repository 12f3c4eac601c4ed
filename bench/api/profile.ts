/**
 * Where a request's time goes, at one connection, in process: wall time against the time between each
 * statement and its answer ("database", which includes waiting for a CPU), and statements per request.
 * On a database seeded by `run.ts`; the zaken and statussen it creates are removed at the end.
 *
 *   npx tsx bench/api/profile.ts [size]     (default 10000)
 */
import type { AddressInfo } from 'node:net';
import { consoleLogger, createRegistry, signZgwJwt, staticAuthorizations, staticCatalog } from '../../src/index.js';
import { EXPAND_DEPTH_FOUR } from './scenarios.js';
import { APPLICATIONS, CLIENTS, RSIN, SECRET, benchCatalog, statustypeUrl, zaaktypeUrl } from './world.js';

const server = new URL(process.env.PG_BENCH_URL ?? process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
server.pathname = `/zaakregister_bench_${process.argv[2] ?? '10000'}`;
const registry = await createRegistry({
  storage: server.toString(),
  catalog: staticCatalog(benchCatalog()),
  authorization: { clients: CLIENTS, source: staticAuthorizations(APPLICATIONS), maxAgeSeconds: 86400 },
  logger: consoleLogger('warn'),
});
const listening = await registry.listen(0, '127.0.0.1');
const api = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/zaken/api/v1`;
const auth = { authorization: `Bearer ${await signZgwJwt('bench-alles', SECRET)}` };
const knex = registry.services.storage.knex;

let databaseMs = 0;
let statements = 0;
const sent = new Map<string, number>();
knex.on('query', (query: { __knexQueryUid: string }) => {
  statements++;
  sent.set(query.__knexQueryUid, performance.now());
});
knex.on('query-response', (_rows: unknown, query: { __knexQueryUid: string }) => {
  databaseMs += performance.now() - (sent.get(query.__knexQueryUid) ?? performance.now());
  sent.delete(query.__knexQueryUid);
});

const sample: { uuid: string; zaaktype: string }[] = await knex('zaak').where('identificatie', 'like', 'BENCH-%').orderBy('id').limit(200).select('uuid', 'zaaktype');
const typeNumber = (url: string) => Number(url.slice(-12));
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body), headers: { ...auth, 'content-type': 'application/json' } });

async function measure(label: string, n: number, request: (i: number) => Promise<Response>): Promise<void> {
  for (let i = 0; i < 20; i++) await (await request(i)).arrayBuffer(); // warm-up
  databaseMs = 0;
  statements = 0;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const response = await request(i);
    await response.arrayBuffer();
    if (response.status >= 400) throw new Error(`${label}: ${response.status}`);
  }
  const wall = (performance.now() - started) / n;
  console.log(`| ${label} | ${wall.toFixed(2)} | ${(databaseMs / n).toFixed(2)} | ${(wall - databaseMs / n).toFixed(2)} | ${(statements / n).toFixed(1)} |`);
}

console.log('| request | ms per request | ms in the database | ms in Node | statements |\n|---|---:|---:|---:|---:|');
await measure('GET /zaken?page=1..10', 200, (i) => fetch(`${api}/zaken?page=${1 + (i % 10)}`, { headers: auth }));
await measure('GET /zaken?page=1..10, expand 4 levels deep', 50, (i) => fetch(`${api}/zaken?page=${1 + (i % 10)}&expand=${EXPAND_DEPTH_FOUR}`, { headers: auth }));
await measure('GET /zaken/{uuid}', 400, (i) => fetch(`${api}/zaken/${sample[i % 200].uuid}`, { headers: auth }));
const etags = await Promise.all(sample.map(async (z) => (await fetch(`${api}/zaken/${z.uuid}`, { headers: auth })).headers.get('etag') ?? ''));
await measure('GET /zaken/{uuid} 304', 400, (i) => fetch(`${api}/zaken/${sample[i % 200].uuid}`, { headers: { ...auth, 'if-none-match': etags[i % 200] } }));
await measure('POST /zaken', 200, (i) => fetch(`${api}/zaken`, post({ zaaktype: zaaktypeUrl(i % 100), bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, startdatum: '2026-01-01' })));
await measure('POST /statussen', 200, (i) => {
  const zaak = sample[i % 200];
  const time = `${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
  return fetch(`${api}/statussen`, post({ zaak: `${api}/zaken/${zaak.uuid}`, statustype: statustypeUrl(typeNumber(zaak.zaaktype), 1), datumStatusGezet: `2026-01-01T10:${time}Z` }));
});
// Back to the seeded state, as run.ts expects it.
await knex('zaak').whereNot('identificatie', 'like', 'BENCH-%').delete();
await knex('status').where('datum_status_gezet', '>=', '2026-01-01').delete();
await registry.close();
