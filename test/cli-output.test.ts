import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoZaaktype } from '../src/demo.js';
import { eventually } from './helpers/eventually.js';
import { exitCode, ROOT, spawnTs, waitForOutput } from './helpers/spawn.js';
import { startNotificatiesApi, type NotificatiesApiServer } from './helpers/zgw-servers.js';

/** Runs the CLI to its end: exit code, stdout and stderr apart. */
async function run(args: string[]) {
  const child = spawnTs('src/cli.ts', args);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await exitCode(child);
  return { code, stdout, stderr };
}

/** Runs the CLI on a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
async function runOnTerminal(args: string[]): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, '--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await exitCode(child);
  return { code, output: output.replaceAll('\r\n', '\n') };
}

describe('CLI output: progress, clean stdout, the kanaal, shutdown and delivery errors', function () {
  this.timeout(240_000);
  let dir: string;
  let nrc: NotificatiesApiServer;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-output-'));
    nrc = await startNotificatiesApi();
  });
  afterEach(async () => {
    await nrc.close();
    await rm(dir, { recursive: true, force: true });
  });

  const configWith = async (notifications: Record<string, unknown>) => {
    const file = path.join(dir, 'config.json');
    await writeFile(file, JSON.stringify({ database: path.join(dir, 'data'), development: true, plugins: { notifications: { url: nrc.url, ...notifications } } }));
    return file;
  };

  it('migrate logs each migration with its time after a line about the new directory, keeps stdout to its result and sends nothing to the Notificaties API; serve registers the kanaal and logs the end of its shutdown', async () => {
    const config = await configWith({});
    const migrated = await run(['migrate', '--config', config]);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /^applied: core\/001_zaak, [^\n]+\n$/);
    const lines = migrated.stderr
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; migration?: string; durationMs?: number });
    assert.equal(lines[0].msg, `initialising embedded database at ${path.join(dir, 'data')} (the first start takes a while)`);
    const steps = lines.filter((line) => line.migration);
    assert.deepEqual(
      steps.map((line) => line.migration),
      migrated.stdout.replace('applied: ', '').trim().split(', '),
    );
    for (const step of steps) {
      assert.equal(typeof step.durationMs, 'number');
      assert.equal(step.msg, `applied migration ${step.migration} (${step.durationMs} ms)`);
    }
    assert.deepEqual(nrc.requests.map((r) => `${r.method} ${r.path}`), [], 'migrate must not call the Notificaties API');

    const server = spawnTs('src/cli.ts', ['serve', '--config', config, '--port', '0']);
    try {
      await waitForOutput(server, /serving http:/);
      await eventually(() => assert.deepEqual(nrc.kanalen.map((k) => k.naam), ['zaken']), 60_000);
      assert.deepEqual(
        nrc.requests.map((r) => `${r.method} ${r.path}`),
        ['GET /notificaties/api/v1/kanaal?naam=zaken', 'POST /notificaties/api/v1/kanaal'],
      );
      server.kill('SIGTERM');
      assert.equal(await exitCode(server), 0);
      assert.match(server.output(), /SIGTERM received, shutting down[\s\S]*shutdown complete/);
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('on a terminal, migrate prints a plain line per migration and no JSON', async () => {
    const migrated = await runOnTerminal(['migrate', '--database', path.join(dir, 'data')]);
    assert.equal(migrated.code, 0, migrated.output);
    assert.match(migrated.output, new RegExp(`^initialising embedded database at ${path.join(dir, 'data')} \\(the first start takes a while\\)$`, 'm'));
    assert.match(migrated.output, /^applied migration core\/001_zaak \(\d+ ms\)$/m);
    assert.match(migrated.output, /^applied: core\/001_zaak, /m);
    assert.doesNotMatch(migrated.output, /\{"level"/);
  });

  it('a delivery the Notificaties API refuses shows its problem (title, invalidParams) in outbox list', async () => {
    // No kanaal registered: the Notificaties API refuses the notification with a validation error.
    const config = await configWith({ registerKanaal: false });
    const server = spawnTs('src/cli.ts', ['serve', '--config', config, '--port', '0']);
    try {
      const [, base] = await waitForOutput(server, /serving (http:\/\/\S+)/);
      const created = await fetch(`${base}/zaken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2024-01-01', zaaktype: demoZaaktype('meldingOpenbareRuimte', base) }),
      });
      assert.equal(created.status, 201);
      await eventually(() => assert.ok(nrc.requests.some((r) => r.path.endsWith('/notificaties'))), 60_000);
      server.kill('SIGTERM');
      assert.equal(await exitCode(server), 0);
    } finally {
      server.kill('SIGKILL');
    }
    const listed = await run(['outbox', 'list', '--config', config]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^pending: 0, failed: 1\n/);
    assert.match(listed.stdout, /\tfailed\tnotifications\t.*answered 400: Invalid input\.: kanaal: kanaal_bestaat_niet\n$/);
    assert.doesNotMatch(listed.stdout, /\{"level"/);
  });
});
