import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Storage } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { exitCode, spawnTs, waitForOutput } from './helpers/spawn.js';
import { seededUuid, zaakBundles } from './helpers/zaak-bundles.js';

/** The CLI's default base URL: what the bundles of a configuration without `baseUrl` are made for. */
const BASE = 'http://localhost:8000/zaken/api/v1';
/** kill -9 mid-job on a database that outlives the process: a PostgreSQL server. */
const postgres = BACKENDS.find((b) => b.name === 'PostgreSQL')!;

describe('zaakregister import: kill -9 and resume, then --verify', function () {
  this.timeout(600_000);
  let storage: Storage;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zaakregister-import-'));
  const input = path.join(dir, 'zaken.ndjson');
  const N = 3000;

  before(async () => {
    storage = await postgres.open();
    writeFileSync(input, [...zaakBundles(N, BASE, { prefix: 'kill' })].map((bundle) => JSON.stringify(bundle)).join('\n') + '\n');
  });
  after(() => storage?.close());

  it('continues where the killed job stopped, with no zaak twice and none left out', async () => {
    const cli = (...args: string[]) => spawnTs('src/cli.ts', ['import', '--database', storage.description, ...args], { NO_COLOR: '1' });
    // One batch at a time: the kill lands mid-job even on a fast machine.
    const first = cli('--in', input, '--concurrency', '1');
    // Killed once its progress lines show it under way (one every 5 seconds off a terminal).
    await waitForOutput(first, /import: [1-9]\d+ of 3000/, 240_000);
    first.kill('SIGKILL');
    await exitCode(first);
    const settled = Number((await storage.knex('migration_item').count({ n: '*' }))[0].n);
    assert.ok(settled > 0 && settled < N, `killed after ${settled} of ${N}:\n${first.output()}`);

    const second = cli('--in', input);
    assert.equal(await exitCode(second), 0, second.output());
    const job = /job ([0-9a-f-]{36}) \(resumed\): imported (\d+)/.exec(second.output());
    assert.ok(job, second.output());
    assert.equal(Number(job[2]), N);
    const count = async (sql: string) => (await storage.knex.raw(sql)).rows[0].n as number;
    assert.equal(await count('select count(*)::int as n from zaak'), N);
    assert.equal(await count('select count(*)::int as n from status'), 3 * N);
    assert.equal(await count('select count(*)::int as n from migration_item'), N);
    assert.equal(await count("select count(*)::int as n from audittrail where toelichting like 'Import %'"), N);
    assert.equal(await count('select count(distinct line)::int as n from migration_item'), N);

    const report = path.join(dir, 'rapport');
    const verify = cli('--verify', job[1], '--report', report);
    assert.equal(await exitCode(verify), 0, verify.output());
    assert.match(verify.output(), /clean/);
    const json = JSON.parse(readFileSync(`${report}.json`, 'utf8'));
    assert.equal(json.clean, true);
    assert.deepEqual(json.counts.zaak, { expected: N, stored: N });
    assert.equal(readFileSync(`${report}.csv`, 'utf8').trim().split('\n').length, N + 1);

    const exported = path.join(dir, 'terug.ndjson');
    const exporting = spawnTs('src/cli.ts', ['export', '--database', storage.description, '--filter', 'identificatie=KILL-0000005', '--out', exported]);
    assert.equal(await exitCode(exporting), 0, exporting.output());
    const back = readFileSync(exported, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const sent = readFileSync(input, 'utf8').split('\n').slice(5, 6).map((line) => JSON.parse(line));
    // What went in comes out, with the import's own audit row after the source's.
    assert.deepEqual(back.map((bundle) => ({ ...bundle, audittrail: bundle.audittrail.slice(0, -1) })), sent);

    // Once more: unchanged, and exit 0.
    const rerun = cli('--in', input);
    assert.equal(await exitCode(rerun), 0, rerun.output());
    assert.match(rerun.output(), new RegExp(`unchanged ${N}`));
  });

  it('exits 1 on a conflicting line, and --verify names it', async () => {
    const lines = readFileSync(input, 'utf8').trim().split('\n');
    const bundle = JSON.parse(lines[3]);
    bundle.zaak.toelichting = 'anders dan ingelezen';
    lines[3] = JSON.stringify(bundle);
    const changed = path.join(dir, 'gewijzigd.ndjson');
    writeFileSync(changed, lines.join('\n'));
    const run = spawnTs('src/cli.ts', ['import', '--database', storage.description, '--in', changed]);
    assert.equal(await exitCode(run), 1, run.output());
    const job = /job ([0-9a-f-]{36}): .*conflict 1/.exec(run.output());
    assert.ok(job, run.output());
    const report = path.join(dir, 'conflict');
    const verify = spawnTs('src/cli.ts', ['import', '--database', storage.description, '--verify', job[1], '--report', report]);
    assert.equal(await exitCode(verify), 1, verify.output());
    assert.match(readFileSync(`${report}.csv`, 'utf8'), new RegExp(`\\n4,${bundle.zaak.uuid},KILL-0000003,conflict,`));
  });
});

/**
 * A Zaken API shaped as Open Zaak answers: pages of `count/next/previous/results` for /zaken and the
 * filtered lists, bare arrays for zaakinformatieobjecten, zaakeigenschappen, besluiten and the audit
 * trail, and 404 for what it does not serve. `faults` decide answers per request.
 */
function openZaakStandIn(zaken: Record<string, any>[], faults: (url: URL, n: number) => 'drop' | 429 | 500 | undefined, seen: string[] = []): Promise<{ server: Server; base: string }> {
  let requests = 0;
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization ?? '');
    const url = new URL(req.url!, 'http://x');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/zaken/api/v1`;
    const fault = faults(url, ++requests);
    if (fault === 'drop') return void req.socket.destroy();
    if (fault) return void res.writeHead(fault, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"detail":"druk"}');
    if (!req.headers.authorization?.startsWith('Bearer ')) return void res.writeHead(401).end();
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const page = (items: unknown[], n: number, size: number, path: string) =>
      json({ count: items.length, next: n * size < items.length ? `${base}${path}?page=${n + 1}` : null, previous: n > 1 ? `${base}${path}?page=${n - 1}` : null, results: items.slice((n - 1) * size, n * size) });
    const route = url.pathname.replace('/zaken/api/v1', '');
    const byZaak = (key: string) => zaken.find((bundle) => bundle.zaak.url === url.searchParams.get('zaak'))?.[key] ?? [];
    const byUuid = (key: string) => zaken.find((bundle) => route.includes(bundle.zaak.uuid))?.[key] ?? [];
    if (route === '/zaken') return page(zaken.map((bundle) => bundle.zaak), Number(url.searchParams.get('page') ?? 1), 2, '/zaken');
    if (route === '/statussen' || route === '/rollen') return page(byZaak(route.slice(1)), 1, 100, route);
    if (route === '/resultaten') return page(byZaak('resultaat') ? [byZaak('resultaat')].flat().filter(Boolean) : [], 1, 100, route);
    if (route === '/zaakinformatieobjecten') return json(byZaak('zaakinformatieobjecten'));
    if (route.endsWith('/zaakeigenschappen')) return json(byUuid('zaakeigenschappen'));
    if (route.endsWith('/audittrail')) return json(byUuid('audittrail'));
    if (route === '/zaakobjecten') return page(byZaak('zaakobjecten'), 1, 100, route);
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Niet gevonden."}');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/zaken/api/v1` })));
}

describe('zaakregister export --from-api', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zaakregister-export-'));

  it('pages through an Open Zaak–shaped API through a 429 and a dropped connection, and resumes from its cursor', async () => {
    let broken = true;
    let dropped = false;
    let started: { server: Server; base: string } | undefined;
    const zaken: Record<string, any>[] = [];
    started = await openZaakStandIn(zaken, (url, n) => {
      if (n === 3) return 429;
      if (url.pathname.endsWith('/audittrail') && !dropped) {
        dropped = true;
        return 'drop';
      }
      // Page 3 fails until the server is "repaired": the first run gives up there.
      if (broken && url.searchParams.get('page') === '3') return 500;
      return undefined;
    });
    zaken.push(...[...zaakBundles(5, started.base, { prefix: 'oz' })]);
    const out = path.join(dir, 'oz.ndjson');
    const args = ['export', '--from-api', started.base, '--client-id', 'migratie', '--secret', 'geheim-geheim-geheim-geheim-geheim', '--out', out];
    const first = spawnTs('src/cli.ts', args);
    assert.equal(await exitCode(first), 1, first.output());
    assert.match(first.output(), /HTTP 429/);
    assert.match(first.output(), /HTTP 500/);
    assert.ok(existsSync(`${out}.cursor`));
    assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 4);
    broken = false;
    const second = spawnTs('src/cli.ts', args);
    assert.equal(await exitCode(second), 0, second.output());
    assert.match(second.output(), /resuming at .*page=3 after 4 zaken/);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((bundle) => bundle.zaak.uuid), [0, 1, 2, 3, 4].map((i) => seededUuid(`oz-${i}`)));
    assert.deepEqual(lines[0].statussen, zaken[0].statussen);
    assert.deepEqual(lines[0].rollen, zaken[0].rollen);
    assert.deepEqual(lines[0].audittrail, zaken[0].audittrail);
    assert.deepEqual(lines[0].zaakinformatieobjecten, zaken[0].zaakinformatieobjecten);
    assert.equal(lines[1].resultaat?.uuid, zaken[1].resultaat.uuid);
    assert.deepEqual(lines[0].klantcontacten, []);
    started.server.close();
  });

  it('sends a --bearer token as it is', async () => {
    const zaken: Record<string, any>[] = [];
    const seen: string[] = [];
    const { server, base } = await openZaakStandIn(zaken, () => undefined, seen);
    zaken.push(...[...zaakBundles(3, base, { prefix: 'og' })]);
    const out = path.join(dir, 'og.ndjson');
    const run = spawnTs('src/cli.ts', ['export', '--from-api', base, '--bearer', 'oauth-toegangstoken', '--out', out]);
    assert.equal(await exitCode(run), 0, run.output());
    assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 3);
    assert.ok(seen.length > 3 && seen.every((header) => header === 'Bearer oauth-toegangstoken'), JSON.stringify(seen.slice(0, 3)));
    server.close();
  });
});
