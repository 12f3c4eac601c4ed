import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoZaaktype } from '../src/demo.js';
import { pgliteStorage } from '../src/index.js';
import { BACKENDS, POSTGRES_URL } from './helpers/backends.js';
import { exitCode, ROOT, spawnTs, waitForOutput } from './helpers/spawn.js';

const ZAAK = { bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2024-01-01' };
const SECRET = 'a-secret-of-at-least-thirty-two-bytes';
const APPLICATION = { clientIds: ['zac'], label: 'Zaakafhandelcomponent', heeftAlleAutorisaties: true, autorisaties: [] };

/** Runs the CLI to its end: exit code and everything it printed. */
async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  const child = spawnTs('src/cli.ts', args, env);
  const code = await exitCode(child);
  return { code, output: child.output() };
}

describe('CLI and the embedded data directory', function () {
  // Each test starts several Node processes (tsx compiles on start): slow on a busy 2-core machine.
  this.timeout(180_000);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const configFile = async (config: unknown) => {
    const file = path.join(dir, `config-${randomBytes(4).toString('hex')}.json`);
    await writeFile(file, JSON.stringify(config));
    return file;
  };

  it('serve starts on a PGlite directory, answers, refuses a second process on the directory, and stops cleanly on SIGTERM', async () => {
    const dataDir = path.join(dir, 'data');
    const server = spawnTs('src/cli.ts', ['serve', '--database', dataDir, '--development', '--port', '0']);
    try {
      const [, base] = await waitForOutput(server, /serving (http:\/\/\S+)/);
      assert.match(server.output(), /DEVELOPMENT MODE/);
      // The demo catalog's zaaktypen live on the server's own origin, whatever port it got.
      const created = await fetch(`${base}/zaken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...ZAAK, zaaktype: demoZaaktype('meldingOpenbareRuimte', base) }),
      });
      assert.equal(created.status, 201, await created.clone().text());
      const wrongPort = await fetch(`${base}/zaken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...ZAAK, zaaktype: demoZaaktype('meldingOpenbareRuimte', 'http://localhost:1') }),
      });
      assert.equal(wrongPort.status, 400);

      await assert.rejects(pgliteStorage({ dataDir }), /in use by another zaakregister process/);

      server.kill('SIGTERM');
      assert.equal(await exitCode(server), 0);
      assert.match(server.output(), /SIGTERM received, shutting down/);
    } finally {
      server.kill('SIGKILL');
    }
    // The lock is released and the data survived the restart.
    const storage = await pgliteStorage({ dataDir });
    try {
      const [{ n }] = await storage.knex('zaak').count({ n: '*' });
      assert.equal(n, 1);
    } finally {
      await storage.close();
    }
  });

  it('answers JSON on GET / and on the base path, with links to the API and its OpenAPI document', async () => {
    const server = spawnTs('src/cli.ts', ['serve', '--database', 'memory', '--development', '--port', '0']);
    try {
      const [, base] = await waitForOutput(server, /serving (http:\/\/\S+)/);
      const origin = new URL(base).origin;
      const root = await fetch(`${origin}/`);
      assert.equal(root.status, 200);
      assert.match(root.headers.get('content-type')!, /^application\/json/);
      const index = (await root.json()) as { name: string; apis: { href: string; openapi: string; docs: string }[] };
      assert.equal(index.name, 'zaakregister');
      assert.equal(index.apis[0].href, base);
      assert.equal((await fetch(index.apis[0].openapi)).status, 200);
      const docs = await fetch(index.apis[0].docs);
      assert.equal(docs.status, 200);
      assert.match(docs.headers.get('content-type')!, /^text\/html/);

      const apiRoot = await fetch(base);
      assert.equal(apiRoot.status, 200);
      const links = ((await apiRoot.json()) as { _links: Record<string, { href: string }> })._links;
      assert.equal(links.self.href, base);
      assert.equal(links.openapi.href, `${base}/openapi.json`);
      assert.equal(links.zaken.href, `${base}/zaken`);

      const unknown = await fetch(`${origin}/nergens`);
      assert.equal(unknown.status, 404);
      assert.match(unknown.headers.get('content-type')!, /^application\/problem\+json/);

      // --development logs human-readable lines (pino-pretty), not JSON, with the same fields.
      const id = unknown.headers.get('x-request-id')!;
      await waitForOutput(server, new RegExp(`INFO \\(zaakregister/\\d+\\): request completed\\n(?:\\s+.*\\n)*?\\s+reqId: "${id}"`));
      assert.doesNotMatch(server.output(), /^\{"level"/m);
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('migrate --config applies the migrations of the plugins the configuration names, without reaching their servers', async () => {
    const dataDir = path.join(dir, 'data');
    const config = await configFile({
      database: dataDir,
      applications: [APPLICATION],
      // An issuer nobody listens for: migrating needs no authorization server.
      plugins: { 'geo-crs': { storageCrs: 'http://www.opengis.net/def/crs/EPSG/0/28992' }, oauth: { issuers: ['https://127.0.0.1:1'], audience: 'https://zaken.example.nl/zaken/api/v1' }, expand: false },
    });
    const migrated = await run(['migrate', '--config', config]);
    assert.equal(migrated.code, 0, migrated.output);
    const storage = await pgliteStorage({ dataDir });
    try {
      const names = ((await storage.knex('zaakregister_migrations').select('name')) as { name: string }[]).map((row) => row.name);
      for (const name of ['core/001_zaak', 'geo-crs/001_zaak_bbox', 'oauth/001_dpop_proof']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
      // Nothing was delivered or started: the outbox is as the migrations left it.
      assert.equal(Number((await storage.knex('outbox').count({ n: '*' }))[0].n), 0);
    } finally {
      await storage.close();
    }
  });

  it('migrate applies the migrations once; check-config reports every problem by JSON path in one pass', async () => {
    const dataDir = path.join(dir, 'data');
    const first = await run(['migrate', '--database', dataDir]);
    assert.equal(first.code, 0, first.output);
    assert.match(first.output, /applied: core\/001_zaak/);
    const second = await run(['migrate'], { DATABASE_URL: dataDir });
    assert.equal(second.code, 0, second.output);
    assert.match(second.output, /database is up to date/);

    const good = await configFile({ port: 8080, database: 'memory', allowedHosts: ['catalogi.example.nl'], catalog: { type: 'http' }, clients: { zac: SECRET }, applications: [APPLICATION] });
    const ok = await run(['check-config', '--config', good]);
    assert.equal(ok.code, 0, ok.output);
    const refused = await run(['check-config', '--config', await configFile({ port: 'acht', kleur: 'rood', catalog: { type: 'static' } })]);
    assert.equal(refused.code, 1);
    assert.match(refused.output, /\/port: must be integer/);
    assert.match(refused.output, /\/kleur: is not a known key/);
    assert.match(refused.output, /\/catalog\/file: is required/);
    // The authentication rules are reported in the same pass as the schema's.
    assert.match(refused.output, /\/clients: is required/);
  });

  it('check-config accepts exactly what serve accepts: applications without client secrets, short secrets, allowWeakSecrets', async () => {
    const withoutClients = await configFile({ database: 'memory', catalog: { type: 'http' }, applications: [APPLICATION] });
    const shortSecret = await configFile({ database: 'memory', catalog: { type: 'http' }, applications: [APPLICATION], clients: { zac: 'geheim' } });
    for (const [file, problem] of [
      [withoutClients, /\/clients: is required/],
      [shortSecret, /\/clients\/zac: the secret is 6 bytes; HS256 secrets need at least 32/],
    ] as const) {
      const checked = await run(['check-config', '--config', file]);
      const served = await run(['serve', '--config', file, '--port', '0']);
      assert.equal(checked.code, 1, checked.output);
      assert.equal(served.code, 1, served.output);
      assert.match(checked.output, problem);
      assert.match(served.output, problem);
    }

    const weak = await configFile({ database: 'memory', catalog: { type: 'http' }, applications: [APPLICATION], clients: { zac: 'geheim' }, allowWeakSecrets: true });
    const checked = await run(['check-config', '--config', weak]);
    assert.equal(checked.code, 0, checked.output);
    assert.match(checked.output, /"allowWeakSecrets" is on/);
    const server = spawnTs('src/cli.ts', ['serve', '--config', weak, '--port', '0']);
    try {
      await waitForOutput(server, /serving http:/);
      // A JSON log line: the quotes of the message are escaped.
      assert.match(server.output(), /\\"allowWeakSecrets\\" is on/);
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('check-config checks what serve opens: the files the configuration names and the database URL scheme', async () => {
    const missingCatalog = await configFile({ development: true, database: 'memory', catalog: { type: 'static', file: 'types.json' } });
    for (const command of ['check-config', 'serve']) {
      const result = await run([command, '--config', missingCatalog, '--port', '0']);
      assert.equal(result.code, 1, result.output);
      assert.match(result.output, new RegExp(`/catalog/file: cannot read ${path.join(dir, 'types.json').replace(/[.\\]/g, '\\$&')}: no such file`));
      assert.doesNotMatch(result.output, /ENOENT/);
    }
    await writeFile(path.join(dir, 'broken.json'), '{ "zaaktypen": [');
    const checked = await run(['check-config', '--config', await configFile({ development: true, database: 'postgress://zr@127.0.0.1/zaken', catalog: { type: 'static', file: 'broken.json' }, tls: { cert: 'cert.pem', key: 'key.pem' } })]);
    assert.equal(checked.code, 1, checked.output);
    assert.match(checked.output, /\/database: has the unknown scheme postgress:\/\/: the known schemes are postgres:\/\/ and postgresql:\/\//);
    assert.match(checked.output, /\/catalog\/file: \S+broken\.json is not valid JSON/);
    assert.match(checked.output, /\/tls\/cert: cannot read \S+cert\.pem: no such file/);
    assert.match(checked.output, /\/tls\/key: cannot read \S+key\.pem: no such file/);
  });

  it('prints its version and a help text for every command', async () => {
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const printed = await run([flag]);
      assert.equal(printed.code, 0);
      assert.equal(printed.output.trim(), version);
    }
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.output, /Usage: zaakregister <command>/);
    for (const command of ['serve', 'deliver', 'migrate', 'check-config', 'outbox', 'token']) {
      const commandHelp = await run([command, '--help']);
      assert.equal(commandHelp.code, 0, commandHelp.output);
      assert.match(commandHelp.output, new RegExp(`Usage: zaakregister ${command}`));
    }
  });

  it('names an unknown option and the option it resembles, in one line, for every command (exit 2)', async () => {
    for (const command of ['serve', 'deliver', 'migrate', 'check-config', 'outbox', 'token']) {
      const wrong = await run([command, '--prot', '9000']);
      assert.equal(wrong.code, 2, wrong.output);
      assert.equal(wrong.output, `zaakregister: unknown option --prot (did you mean --port?); see zaakregister ${command} --help\n`);
    }
    const far = await run(['serve', '--colour']);
    assert.equal(far.output, 'zaakregister: unknown option --colour; see zaakregister serve --help\n');
  });

  it('a database that cannot be reached is one line naming the setting and the cause, with the stack only at debug level', async () => {
    const refused = await run(['serve', '--development', '--port', '0', '--database', 'postgres://127.0.0.1:1/test']);
    assert.equal(refused.code, 1);
    const errorLines = refused.output.split('\n').filter((line) => line.startsWith('zaakregister:'));
    assert.deepEqual(errorLines, ['zaakregister: cannot connect to PostgreSQL at postgres://127.0.0.1:1/test: connection refused; is PostgreSQL running on 127.0.0.1:1? (set by --database)']);
    assert.doesNotMatch(refused.output, /^\s+at /m);

    const fromEnv = await run(['migrate', '--log-level', 'debug'], { DATABASE_URL: 'postgres://127.0.0.1:1/test' });
    assert.equal(fromEnv.code, 1);
    assert.match(fromEnv.output, /connection refused.*\(set by DATABASE_URL\)/);
    assert.match(fromEnv.output, /^\s+at /m);

    if (BACKENDS.some((backend) => backend.name === 'PostgreSQL')) {
      const missing = new URL(POSTGRES_URL);
      missing.pathname = `/zaakregister_missing_${randomBytes(4).toString('hex')}`;
      const noDatabase = await run(['migrate', '--database', missing.toString()]);
      assert.equal(noDatabase.code, 1);
      assert.match(noDatabase.output, new RegExp(`database "${missing.pathname.slice(1)}" does not exist \\(set by --database\\)`));
      missing.pathname = '/test';
      missing.username = `nobody_${randomBytes(3).toString('hex')}`;
      const noRole = await run(['migrate', '--database', missing.toString()]);
      assert.equal(noRole.code, 1);
      assert.match(noRole.output, /role "nobody_\w+" does not exist \(set by --database\)/);
    }
  });

  it('npm start serves the CLI from its source, building nothing, and stops on SIGTERM to npm', async () => {
    const npm = spawn('npm', ['start', '--silent', '--', '--port', '0', '--database', 'memory'], {
      cwd: ROOT,
      env: { ...process.env, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (d) => (output += d));
    npm.stderr.on('data', (d) => (output += d));
    const served = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const match = output.match(/serving (http:\/\/\S+)/);
        if (match) resolve(match[1]);
      };
      npm.stdout.on('data', check);
      npm.stderr.on('data', check);
      npm.once('exit', () => reject(new Error(`npm start exited early:\n${output}`)));
    });
    assert.equal((await fetch(`${served}/zaken`)).status, 200);
    assert.doesNotMatch(output, /Build (start|success)/);
    npm.kill('SIGTERM');
    await exitCode(npm);
    assert.match(output, /SIGTERM received, shutting down/);
    await assert.rejects(fetch(`${served}/zaken`), /fetch failed/);
  });
});
