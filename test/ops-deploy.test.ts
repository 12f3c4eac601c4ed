import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { exitCode, ROOT, spawnTs, waitForOutput } from './helpers/spawn.js';

const DEPLOY = path.join(ROOT, 'examples/deploy');
const SECRET_CONFIG = '/run/secrets/zaakregister.json';

/** The exec-form JSON array of a Dockerfile instruction. */
async function instruction(name: string): Promise<string[]> {
  const dockerfile = (await readFile(path.join(DEPLOY, 'Dockerfile'), 'utf8')).replace(/\\\n\s*/g, '');
  const line = dockerfile.split('\n').find((l) => l.startsWith(`${name} `))!;
  return JSON.parse(line.slice(line.indexOf('['))) as string[];
}

describe('examples/deploy: the container runs the CLI lines tested here', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-deploy-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('migrate (compose), then serve (Dockerfile CMD) answer, and the HEALTHCHECK passes on /readyz', async () => {
    assert.deepEqual(await instruction('ENTRYPOINT'), ['node', 'dist/cli.js']);
    const serve = await instruction('CMD');
    const compose = parse(await readFile(path.join(DEPLOY, 'compose.yaml'), 'utf8')) as { services: Record<string, { command?: string[] }> };
    const migrate = compose.services.migrate.command!;
    // The example configuration, on a PGlite directory here instead of the compose file's PostgreSQL.
    const config = JSON.parse(await readFile(path.join(DEPLOY, 'secrets/zaakregister.example.json'), 'utf8')) as Record<string, unknown>;
    const file = path.join(dir, 'zaakregister.json');
    await writeFile(file, JSON.stringify({ ...config, database: path.join(dir, 'data') }));
    const local = (args: string[]) => args.map((a) => (a === SECRET_CONFIG ? file : a));

    const migrated = spawnTs('src/cli.ts', local(migrate));
    assert.equal(await exitCode(migrated), 0, migrated.output());
    assert.match(migrated.output(), /applied: /);

    const server = spawnTs('src/cli.ts', local(serve), { PORT: '0' });
    try {
      const [, port] = await waitForOutput(server, /"port":(\d+),"msg":"serving/);
      const healthcheck = await instruction('HEALTHCHECK');
      const probe = spawnSync(healthcheck[0], healthcheck.slice(1), { env: { ...process.env, PORT: port } });
      assert.equal(probe.status, 0, String(probe.stderr));
      assert.equal((await fetch('http://127.0.0.1:9464/metrics')).status, 200);
    } finally {
      server.kill('SIGTERM');
      assert.equal(await exitCode(server), 0);
    }
  });
});
