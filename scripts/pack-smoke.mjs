#!/usr/bin/env node
// The published package as a user gets it: `npm pack`, then blank projects that install the tarball
// (ESM + Express 5, CommonJS + Express 4, TypeScript ESM and CommonJS with skipLibCheck false,
// TypeScript with moduleResolution node16) and use it;
// publint and attw on the tarball; the README's TypeScript and shell examples run against it.
// Run after `npm run build`: `npm run test:pack`.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(path.join(tmpdir(), 'zaakregister-pack-'));
const SECRET = 'a-secret-for-the-pack-smoke-test-of-32+-bytes';
const children = new Set();
process.on('exit', () => {
  for (const child of children) {
    try {
      process.kill(child.spawnargs[0] === 'npx' ? -child.pid : child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(work, { recursive: true, force: true });
});

const step = (title) => console.log(`\n== ${title}`);
const sh = (command, args, cwd, env = {}) =>
  execFileSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });

step('npm pack');
const [packed] = JSON.parse(sh('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], root));
const tarball = path.join(work, packed.filename);
const shipped = new Set(packed.files.map((file) => file.path));
console.log(`${packed.filename}: ${packed.files.length} files, ${packed.size} bytes`);

step('the tarball holds what the README and the error messages point to');
for (const required of ['LICENSE', 'NOTICE.md', 'config.schema.json', 'dist/index.js', 'dist/index.cjs', 'dist/demo.js', 'dist/cli.js']) {
  assert.ok(shipped.has(required), `${required} is not in the tarball`);
}
const pointedTo = new Set();
for (const file of ['README.md', ...listFiles('src'), ...listFiles('plugins')]) {
  if (file.endsWith('.test.ts')) continue;
  for (const [reference] of readFileSync(path.join(root, file), 'utf8').matchAll(/\b(?:docs|examples)\/[\w.-]+\.(?:md|json|ts)\b/g)) pointedTo.add(reference);
}
for (const reference of pointedTo) assert.ok(shipped.has(reference), `${reference} is referred to but not in the tarball`);
console.log(`${pointedTo.size} referenced docs and examples shipped`);
for (const map of [...shipped].filter((file) => file.endsWith('.map'))) {
  const { sources, sourcesContent } = JSON.parse(readFileSync(path.join(root, map), 'utf8'));
  // A stack trace must point at a file the user has: the sources travel inside the maps.
  assert.equal(sourcesContent?.filter((content) => typeof content === 'string').length, sources.length, `${map} lacks sourcesContent`);
}

step('publint');
console.log(sh('npx', ['publint', 'run', tarball, '--strict'], root));
step('@arethetypeswrong/cli');
// node10 resolution has no subpath exports; `main`/`types` still serve it the root entry.
console.log(sh('npx', ['attw', tarball, '--profile', 'node16'], root));

const ZAAK = { bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2026-01-01' };

/** A blank project with the tarball and the given packages installed. */
function project(name, packageJson, dependencies) {
  const dir = path.join(work, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, private: true, ...packageJson }, null, 2));
  sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball, ...dependencies], dir);
  return dir;
}

/** Starts a process that prints `{"base", "zaaktype", "token"}` on its first line; resolves with that. */
function start(command, args, cwd, env = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (data) => {
      output += data;
      const line = output.split('\n').find((candidate) => candidate.startsWith('{"base"'));
      if (line) resolve({ child, ...JSON.parse(line), output: () => output });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (data) => (output += data));
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

async function stop(child) {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  if (child.spawnargs[0] === 'npx') process.kill(-child.pid, 'SIGTERM');
  else child.kill('SIGTERM');
  children.delete(child);
  return exited;
}

/** What every mounted registry must do, whichever module system and Express version host it. */
async function exercise({ base, zaaktype, token }) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = await fetch(`${base}/zaken`, { method: 'POST', headers, body: JSON.stringify({ ...ZAAK, zaaktype }) });
  assert.equal(created.status, 201, await created.clone().text());
  const zaak = await created.json();
  const read = await fetch(zaak.url, { headers });
  assert.equal(read.status, 200);
  assert.equal((await read.json()).identificatie, zaak.identificatie);
  const filtered = await fetch(`${base}/zaken?identificatie=${encodeURIComponent(zaak.identificatie)}`, { headers });
  assert.equal((await filtered.json()).count, 1);
  // Express 4's default query parser would make an object of this; the registry reads the raw query.
  const nested = await fetch(`${base}/zaken?identificatie[x]=1`, { headers });
  assert.equal(nested.status, 400);
  assert.equal((await nested.json()).invalidParams[0].code, 'unknown-parameters');
  const missing = await fetch(`${base}/nergens`, { headers });
  assert.equal(missing.status, 404);
  assert.match(missing.headers.get('content-type'), /^application\/problem\+json/);
  const wrongMethod = await fetch(`${base}/zaken`, { method: 'DELETE', headers });
  assert.equal(wrongMethod.status, 405);
  assert.match(wrongMethod.headers.get('allow'), /GET/);
  const malformed = await fetch(`${base}/zaken`, { method: 'POST', headers, body: '{"zaaktype": ' });
  assert.equal(malformed.status, 400);
  assert.match(malformed.headers.get('content-type'), /^application\/problem\+json/);
  assert.equal((await fetch(`${base}/zaken`)).status, 401);
}

/** The body of a host app: mounts the registry on memory storage with the demo catalog and prints how to reach it. */
const hostApp = (imports) => `${imports}
const app = express();
const server = app.listen(0, '127.0.0.1', async () => {
  const origin = 'http://127.0.0.1:' + server.address().port;
  const registry = await createRegistry({
    storage: 'memory',
    catalog: demoCatalog(origin),
    authorization: { clients: { demo: process.env.SECRET }, source: staticAuthorizations(demoApplications('demo')) },
  });
  app.use('/zaken/api/v1', registry.router);
  const token = await signZgwJwt('demo', process.env.SECRET);
  console.log(JSON.stringify({ base: origin + '/zaken/api/v1', zaaktype: demoZaaktype('meldingOpenbareRuimte', origin), token }));
  process.once('SIGTERM', () => server.close(() => registry.close()));
});
`;

step('ESM + Express 5');
{
  const dir = project('esm-express5', { type: 'module' }, ['express@^5']);
  writeFileSync(
    path.join(dir, 'app.js'),
    hostApp(`import express from 'express';
import { createRegistry, signZgwJwt, staticAuthorizations } from 'zaakregister';
import { demoApplications, demoCatalog, demoZaaktype } from 'zaakregister/demo';
import { transform } from 'zaakregister/crs';
if (!transform([155000, 463000], 'EPSG:28992', 'CRS84').some((c) => Math.abs(c - 52.155) < 0.01)) throw new Error('zaakregister/crs cannot transform RD to WGS 84');`),
  );
  const app = await start('node', ['app.js'], dir, { SECRET });
  await exercise(app);
  assert.equal(await stop(app.child), 0, app.output());
  console.log('ok');
}

step('the installed tree sends nothing home: no telemetry package, no install script');
{
  // Install-time analytics report from an install script; @scarf/scarf is the one known by name.
  const TELEMETRY = ['@scarf/scarf'];
  const installed = installedPackages(path.join(work, 'esm-express5', 'node_modules'));
  assert.deepEqual(installed.filter(({ name }) => TELEMETRY.includes(name)).map(({ name }) => name), []);
  const scripted = installed.filter(({ scripts = {} }) => ['preinstall', 'install', 'postinstall'].some((hook) => scripts[hook]));
  assert.deepEqual(scripted.map(({ name }) => name), [], 'packages that run a script when installed');
  // The docs page's Swagger UI travels inside the package, with its license.
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'LICENSE', 'NOTICE']) assert.ok(shipped.has(`dist/swagger-ui/${file}`), `dist/swagger-ui/${file}`);
  console.log(`${installed.length} packages installed, none of them telemetry or with an install script`);
}

step('CommonJS + Express 4');
{
  const dir = project('cjs-express4', {}, ['express@^4.21']);
  writeFileSync(
    path.join(dir, 'app.js'),
    hostApp(`const express = require('express');
const { createRegistry, signZgwJwt, staticAuthorizations } = require('zaakregister');
const { demoApplications, demoCatalog, demoZaaktype } = require('zaakregister/demo');
const { transform } = require('zaakregister/crs');
if (!transform([155000, 463000], 'EPSG:28992', 'CRS84').some((c) => Math.abs(c - 52.155) < 0.01)) throw new Error('zaakregister/crs cannot transform RD to WGS 84');
if (!require('zaakregister/config.schema.json').properties.clients) throw new Error('the config schema has no clients');`),
  );
  assert.match(sh('npm', ['ls', 'express'], dir), /express@4\./);
  const app = await start('node', ['app.js'], dir, { SECRET });
  await exercise(app);
  assert.equal(await stop(app.child), 0, app.output());
  console.log('ok');
}

/**
 * Embedding as TypeScript ESM (.mts) and CommonJS (.cts) write it: the awaited storage of the README
 * and its promise type-check, a plugin factory where its plugin belongs is a type error, and the
 * compiled program gets the clear errors of these mistakes (as JavaScript would).
 */
const EMBEDDING = `import assert from 'node:assert/strict';
import { consoleLogger, createRegistry, pgliteStorage, postgresStorage, zrcRules, type Plugin } from 'zaakregister';

// @ts-expect-error a plugin factory is no plugin: call it
const uncalled: Plugin = zrcRules;
const logger = consoleLogger('silent');

/** The README's form, type-checked only: no PostgreSQL here. */
export const onPostgres = async (connection: string) => createRegistry({ storage: await postgresStorage({ connection }) });

async function main(): Promise<void> {
  const awaited = await createRegistry({ storage: await pgliteStorage({ dataDir: 'memory' }), preset: 'none', logger });
  await awaited.close();
  const promised = await createRegistry({ storage: pgliteStorage({ dataDir: 'memory' }), preset: 'none', logger });
  await promised.close();
  await assert.rejects(createRegistry({ plugins: [uncalled], logger }), { message: 'createRegistry: plugins[0] is the function zrcRules, not a plugin: call it (zrcRules())' });
  await assert.rejects(createRegistry({ storage: postgresStorage as never, logger }), { message: /^createRegistry: storage is the function postgresStorage: call it/ });
  await assert.rejects(createRegistry({ preset: 'standart' as never, logger }), { message: 'createRegistry: preset must be one of "standard", "none"' });
  assert.throws(() => zrcRules({ referenceCacheTtl: 1 } as never), /referenceCacheTtl is not a known option \\(did you mean referenceCacheTtlMs\\?\\)/);
  console.log('embedding ok');
}
main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;

step('TypeScript ESM and CommonJS (node16, skipLibCheck false): embedding type-checks, mistakes are type errors and clear errors');
{
  const dir = project('typescript-esm-cjs', {}, ['express@^5', '@types/express@^5', '@types/node@^20', 'typescript@~5.8']);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'node16', moduleResolution: 'node16', target: 'es2022', strict: true, outDir: 'out', skipLibCheck: false, types: ['node'] }, include: ['*.mts', '*.cts'] }),
  );
  writeFileSync(path.join(dir, 'embed.mts'), EMBEDDING);
  writeFileSync(path.join(dir, 'embed.cts'), EMBEDDING);
  sh('npx', ['tsc', '-p', '.'], dir);
  for (const compiled of ['out/embed.mjs', 'out/embed.cjs']) assert.match(sh('node', [compiled], dir), /embedding ok/, compiled);
  console.log('ok');
}

step('TypeScript (node16) with the README examples');
{
  const dir = project('typescript', { type: 'module' }, ['express@^5', '@types/express@^5', '@types/node@^20', 'typescript@~5.8']);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'node16', moduleResolution: 'node16', target: 'es2022', strict: true, outDir: 'out', skipLibCheck: false }, include: ['*.ts'] }),
  );
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)].map(([, lang, info, code]) => ({ lang, info: info.trim(), code }));
  const typescript = blocks.filter((block) => block.lang === 'ts');
  assert.ok(typescript.length >= 2, 'the README has TypeScript examples');
  typescript.forEach((block, index) => writeFileSync(path.join(dir, `readme-${index}.ts`), block.code));
  sh('npx', ['tsc', '-p', '.'], dir);
  console.log(`${typescript.length} TypeScript examples type-check`);

  // The README's Express example, run as written: it listens on 8000 with the demo catalog.
  const server = typescript.findIndex((block) => block.code.includes('app.listen('));
  assert.ok(server >= 0, 'the README has an Express example');
  const { signZgwJwt } = await import(pathToFileURL(path.join(dir, 'node_modules/zaakregister/dist/index.js')).href);
  const child = spawn('node', [`out/readme-${server}.js`], { cwd: dir, env: { ...process.env, DEMO_SECRET: SECRET }, stdio: 'inherit' });
  children.add(child);
  const { demoZaaktype } = await import(pathToFileURL(path.join(dir, 'node_modules/zaakregister/dist/demo.js')).href);
  await waitForHttp('http://localhost:8000/zaken/api/v1');
  await exercise({ base: 'http://localhost:8000/zaken/api/v1', zaaktype: demoZaaktype('meldingOpenbareRuimte', 'http://localhost:8000'), token: await signZgwJwt('demo', SECRET) });
  assert.equal(await stop(child), 0);
  console.log('the Express example serves');

  // The README's shell examples against `npx zaakregister serve --development` of the installed package.
  // Its own process group: npx runs the bin through a shell, and the signal must reach the server.
  const serve = spawn('npx', ['zaakregister', 'serve', '--development'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  children.add(serve);
  await waitForHttp('http://localhost:8000/zaken/api/v1');
  const shell = blocks.filter((block) => block.lang === 'sh' && block.info !== 'clone');
  assert.ok(shell.length >= 1, 'the README has shell examples');
  const outputs = shell.map((block) =>
    // curl fails on an HTTP error, so an example that stopped working fails here.
    sh('bash', ['-euo', 'pipefail', '-c', `curl() { command curl --fail-with-body -sS "$@"; }\n${block.code}`], dir),
  );
  // The tour closes a zaak: the archive plugin derives its fields, and the caching plugin answers 304.
  const tour = outputs[shell.findIndex((block) => block.info === 'tour')];
  assert.ok(tour !== undefined, 'the README has a tour (a `sh tour` block)');
  assert.match(tour, /"archiefnominatie":"vernietigen","archiefactiedatum":"2027-11-23"/, `the tour's closed zaak lacks its archive fields:\n${tour}`);
  assert.match(tour, /^304$/m, `the tour's read with If-None-Match was not answered 304:\n${tour}`);
  assert.match(tour, /"_expand":\{"statustype":\{"omschrijving":"Afgehandeld"\}\}/, `the tour's _zoek with fields did not expand the status's statustype:\n${tour}`);
  assert.match(tour, /^\[\{"zaaknummer":"ZAAK-\d{4}-\d{10}"\},\{"zaaknummer":"ZAAK-\d{4}-\d{10}"\}\]$/m, `the tour did not reserve two zaaknummers:\n${tour}`);
  assert.match(tour, /^create zaaknotitie$/m, `the tour's note is not in the audit trail:\n${tour}`);
  assert.match(tour, /^1 Ontvangen\n2 Afgehandeld$/m, `the tour did not read the demo zaaktype's statustypen from the catalog:\n${tour}`);
  await stop(serve);
  // npx itself ends by the signal; what counts is that the server it started is gone once it has drained.
  await waitForHttpGone('http://localhost:8000/zaken/api/v1');
  console.log(`${shell.length} shell examples run (blocks marked \`sh clone\` are for a clone of the repository: .ci/run works from one)`);
}

step('the plugin template (examples/plugin-template) builds and passes its tests against the tarball');
{
  const dir = path.join(work, 'plugin-template');
  cpSync(path.join(root, 'examples/plugin-template'), dir, { recursive: true, filter: (source) => !/[/\\](node_modules|dist)$/.test(source) });
  sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball], dir);
  // node --test prints TAP; a failing test makes npm test, and so this step, fail.
  console.log(sh('npm', ['test'], dir).split('\n').filter((line) => /^# (tests|pass|fail)/.test(line)).join('\n'));
}

console.log('\npack smoke: all good');

async function waitForHttp(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function waitForHttpGone(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url, { headers: { connection: 'close' } });
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`${url} still answers ${timeoutMs} ms after SIGTERM`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every package under a node_modules folder, nested ones too: the manifests of what npm installed. */
function installedPackages(modules) {
  if (!existsSync(modules)) return [];
  return readdirSync(modules).flatMap((entry) => {
    if (entry.startsWith('.')) return [];
    if (entry.startsWith('@')) return readdirSync(path.join(modules, entry)).flatMap((name) => installedPackage(path.join(modules, entry, name)));
    return installedPackage(path.join(modules, entry));
  });
}

function installedPackage(dir) {
  const manifest = path.join(dir, 'package.json');
  if (!existsSync(manifest)) return [];
  return [JSON.parse(readFileSync(manifest, 'utf8')), ...installedPackages(path.join(dir, 'node_modules'))];
}

function listFiles(dir) {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name)));
}
