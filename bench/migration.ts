/**
 * Import and export rates of `services.migration` on PostgreSQL: N zaken with 3 statussen, 2 rollen
 * and 5 audit rows each (every sixth with one of each other record kind) written as NDJSON, imported
 * into a fresh database (8 bundles at once, one transaction each), then exported from it. Peak RSS is
 * sampled every 100 ms in the process that imports and exports (a child process writes the input).
 *
 *   npx tsx bench/migration.ts [zaken] [postgres-url]
 *
 * Prints a Markdown table. Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { consoleLogger, createRegistry, postgresStorage } from '../src/index.js';
import { fileLines } from '../src/cli/migration.js';
import { zaakBundles } from '../test/helpers/zaak-bundles.js';

const N = Number(process.argv[2] ?? 100_000);
const ADMIN_URL = process.argv[3] ?? process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const BASE = 'http://localhost:8000/zaken/api/v1';
const DATABASE = 'zaakregister_bench_migration';
const file = path.join(os.tmpdir(), `zaakregister-migration-${N}.ndjson`);

// The input is written by a process of its own: what generating it allocates is not in the figures.
if (process.argv[4] === '--generate-only') {
  const out = createWriteStream(file);
  for (const bundle of zaakBundles(N, BASE)) if (!out.write(`${JSON.stringify(bundle)}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  process.exit(0);
}
const generated = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), String(N), ADMIN_URL, '--generate-only'], { stdio: 'inherit' });
if (generated.status !== 0) process.exit(generated.status ?? 1);

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);

const admin = knexFactory({ client: 'pg', connection: ADMIN_URL });
await admin.raw(`drop database if exists ${DATABASE}`);
await admin.raw(`create database ${DATABASE}`);
const url = new URL(ADMIN_URL);
url.pathname = `/${DATABASE}`;
const registry = await createRegistry({ storage: await postgresStorage({ connection: url.href }), preset: 'none', baseUrl: BASE, logger: consoleLogger('silent'), outbox: { dispatch: false } });

peak = 0;
let started = Date.now();
const result = await registry.services.migration.import(fileLines(file), {});
const importSeconds = (Date.now() - started) / 1000;
const importPeak = peak;
if (result.counters.imported !== N) throw new Error(`imported ${JSON.stringify(result.counters)}`);

peak = 0;
started = Date.now();
const sink = createWriteStream('/dev/null');
let exported = 0;
for await (const bundle of registry.services.migration.export()) {
  if (!sink.write(`${JSON.stringify(bundle)}\n`)) await once(sink, 'drain');
  exported++;
}
const exportSeconds = (Date.now() - started) / 1000;
const exportPeak = peak;
clearInterval(sampler);
await registry.close();
await admin.raw(`drop database if exists ${DATABASE}`);
await admin.destroy();
rmSync(file);

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
console.log(`| step | zaken | seconds | zaken/s | peak RSS |\n|---|---|---|---|---|`);
console.log(`| import | ${N} | ${importSeconds.toFixed(1)} | ${Math.round(N / importSeconds)} | ${mb(importPeak)} |`);
console.log(`| export | ${exported} | ${exportSeconds.toFixed(1)} | ${Math.round(exported / exportSeconds)} | ${mb(exportPeak)} |`);
console.log(`\n${os.cpus().length} × ${os.cpus()[0].model}, Node ${process.version}`);
