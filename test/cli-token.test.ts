import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { exitCode, spawnTs, waitForOutput } from './helpers/spawn.js';

const SECRET = 'a-secret-of-at-least-thirty-two-bytes';

/** Runs the CLI to its end: exit code, stdout alone, and everything it printed. */
async function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawnTs('src/cli.ts', args, env);
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  const code = await exitCode(child);
  return { code, stdout, output: child.output() };
}

describe('zaakregister token', function () {
  this.timeout(180_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-token-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('prints a ZGW JWT on stdout that a registry configured with the client accepts', async () => {
    const config = path.join(dir, 'config.json');
    await writeFile(
      config,
      JSON.stringify({
        database: 'memory',
        catalog: { type: 'http' },
        clients: { zac: SECRET },
        applications: [{ clientIds: ['zac'], label: 'Zaakafhandelcomponent', heeftAlleAutorisaties: true, autorisaties: [] }],
      }),
    );
    const server = spawnTs('src/cli.ts', ['serve', '--config', config, '--port', '0']);
    try {
      const [, base] = await waitForOutput(server, /serving (http:\/\/\S+)/);
      const printed = await run(['token', '--client-id', 'zac', '--secret', SECRET, '--user-id', 'jan', '--user-representation', 'Jan Jansen', '--expires-in', '600']);
      assert.equal(printed.code, 0, printed.output);
      const token = printed.stdout.trim();
      assert.match(printed.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
      const claims = decodeJwt(token);
      assert.equal(claims.client_id, 'zac');
      assert.equal(claims.iss, 'zac');
      assert.equal(claims.user_id, 'jan');
      assert.equal(claims.user_representation, 'Jan Jansen');
      assert.equal(claims.exp, claims.iat! + 600);

      const answered = await fetch(`${base}/zaken`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(answered.status, 200, await answered.clone().text());
      // The same client's secret read from the configuration file, and from the environment.
      for (const alternative of [await run(['token', '--client-id', 'zac', '--config', config]), await run(['token', '--client-id', 'zac'], { ZAAKREGISTER_SECRET: SECRET })]) {
        assert.equal(alternative.code, 0, alternative.output);
        assert.equal((await fetch(`${base}/zaken`, { headers: { authorization: `Bearer ${alternative.stdout.trim()}` } })).status, 200);
      }
      const wrongSecret = await run(['token', '--client-id', 'zac', '--secret', `${SECRET}-not`]);
      assert.equal((await fetch(`${base}/zaken`, { headers: { authorization: `Bearer ${wrongSecret.stdout.trim()}` } })).status, 401);
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('refuses a missing or malformed flag with one line naming it, exit 2, and documents every flag', async () => {
    for (const [args, line] of [
      [['token', '--secret', SECRET], 'zaakregister: token needs --client-id; see zaakregister token --help'],
      [['token', '--client-id', 'zac'], 'zaakregister: token needs --secret (or env ZAAKREGISTER_SECRET, or --config with the client in "clients"); see zaakregister token --help'],
      [['token', '--client-id', 'zac', '--secret', SECRET, '--expires-in', 'soon'], 'zaakregister: --expires-in is a number of seconds (1 or more); see zaakregister token --help'],
      [['token', '--clientid', 'zac', '--secret', SECRET], 'zaakregister: unknown option --clientid (did you mean --client-id?); see zaakregister token --help'],
    ] as const) {
      const refused = await run([...args], { ZAAKREGISTER_SECRET: '' });
      assert.equal(refused.code, 2, refused.output);
      assert.equal(refused.output, `${line}\n`);
      assert.equal(refused.stdout, '');
    }
    const help = await run(['token', '--help']);
    assert.equal(help.code, 0);
    for (const flag of ['--client-id', '--secret', '--user-id', '--user-representation', '--expires-in', '--config', 'ZAAKREGISTER_SECRET']) assert.match(help.stdout, new RegExp(flag));
    assert.match((await run(['--help'])).stdout, /token {2,}print a ZGW JWT/);
  });
});
