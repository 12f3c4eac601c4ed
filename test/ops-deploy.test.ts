import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { exitCode, ROOT, waitForOutput, type spawnTs } from './helpers/spawn.js';

const DEPLOY = path.join(ROOT, 'examples/deploy');
const SECRET_CONFIG = '/run/secrets/zaakregister.json';

const dockerfile = async () => (await readFile(path.join(DEPLOY, 'Dockerfile'), 'utf8')).replace(/\\\n\s*/g, '');

/** The exec-form JSON array of a Dockerfile instruction. */
async function instruction(name: string): Promise<string[]> {
  const line = (await dockerfile()).split('\n').find((l) => l.startsWith(`${name} `))!;
  return JSON.parse(line.slice(line.indexOf('['))) as string[];
}

/**
 * The image's runtime stage without Docker: what its `COPY --from=build /app/…` lines take from the
 * build stage (this checkout, built), laid out as in `/app`. node_modules is linked, not pruned: that
 * the production dependencies suffice is what the pack smoke test shows.
 */
async function runtimeStage(into: string): Promise<void> {
  const runtime = (await dockerfile()).split(/^FROM /m).at(-1)!;
  for (const [, sources, destination] of runtime.matchAll(/^COPY --from=build ((?:\/app\/\S+\s+)+)(\S+)$/gm)) {
    for (const source of sources.trim().split(/\s+/).map((s) => s.replace(/^\/app\//, ''))) {
      const target = destination.endsWith('/') ? path.join(into, path.basename(source)) : path.join(into, destination.replace(/^\.\//, ''));
      if (source === 'node_modules') await symlink(path.join(ROOT, 'node_modules'), target);
      else await cp(path.join(ROOT, source), target, { recursive: true });
    }
  }
}

/** `node <entrypoint> <args>` in the staged `/app`, as the container runs it. */
function inContainer(app: string, entrypoint: string[], args: string[], env: NodeJS.ProcessEnv = {}): ReturnType<typeof spawnTs> {
  const child = spawn(entrypoint[0] === 'node' ? process.execPath : entrypoint[0], [...entrypoint.slice(1), ...args], { cwd: app, env: { ...process.env, NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return Object.assign(child, { output: () => output });
}

describe('examples/deploy: the container runs the CLI lines tested here', () => {
  let dir: string;
  let app: string;
  before(async function () {
    this.timeout(180_000);
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-deploy-'));
    // The build stage's `npm run build`, so that the staged dist is this checkout's.
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
    app = path.join(dir, 'app');
    await runtimeStage(app);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('in the runtime stage\'s files, migrate (compose), then serve (Dockerfile CMD) answer, and the HEALTHCHECK passes on /readyz', async () => {
    const entrypoint = await instruction('ENTRYPOINT');
    assert.deepEqual(entrypoint, ['node', 'dist/cli.js']);
    const serve = await instruction('CMD');
    const compose = parse(await readFile(path.join(DEPLOY, 'compose.yaml'), 'utf8')) as { services: Record<string, { command?: string[] }> };
    const migrate = compose.services.migrate.command!;
    // The example configuration, on a PGlite directory here instead of the compose file's PostgreSQL.
    const config = JSON.parse(await readFile(path.join(DEPLOY, 'secrets/zaakregister.example.json'), 'utf8')) as Record<string, unknown>;
    const file = path.join(dir, 'zaakregister.json');
    await writeFile(file, JSON.stringify({ ...config, database: path.join(dir, 'data') }));
    const local = (args: string[]) => args.map((a) => (a === SECRET_CONFIG ? file : a));

    const migrated = inContainer(app, entrypoint, local(migrate));
    assert.equal(await exitCode(migrated), 0, migrated.output());
    assert.match(migrated.output(), /applied: /);

    const server = inContainer(app, entrypoint, local(serve), { PORT: '0' });
    try {
      const [, port] = await waitForOutput(server, /"port":(\d+),[^}]*"msg":"serving/);
      const healthcheck = await instruction('HEALTHCHECK');
      const probe = spawnSync(healthcheck[0], healthcheck.slice(1), { env: { ...process.env, PORT: port } });
      assert.equal(probe.status, 0, String(probe.stderr));
      assert.equal((await fetch('http://127.0.0.1:9464/metrics')).status, 200);
      // What the image serves from its own files: the docs pages and the error catalogue.
      const docs = await fetch(`http://127.0.0.1:${port}/zaken/api/v1/docs/errors`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /id="not_found"/);
    } finally {
      server.kill('SIGTERM');
      assert.equal(await exitCode(server), 0, server.output());
    }
  });
});
