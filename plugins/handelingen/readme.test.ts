import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawnTs, waitForOutput } from '../../test/helpers/spawn.js';

const README = new URL('./README.md', import.meta.url);

/** The README's fenced blocks of a language and info string, in order. */
async function blocks(lang: string, info?: string): Promise<string[]> {
  const text = await readFile(README, 'utf8');
  return [...text.matchAll(/^```(\w+)(?: (\S+))?\n([\s\S]*?)^```$/gm)].filter(([, l, i]) => l === lang && (info === undefined || i === info)).map(([, , , code]) => code);
}

/**
 * The README's examples, run as written against `zaakregister serve --development` with the README's
 * configuration file, in one shell, in order: each prints what the answer shows, checked here. The
 * PGlite storage is the CLI's default kind (in memory here).
 */
describe('handelingen README: the curl examples run against the development server', function () {
  this.timeout(180_000);

  it('registers, suspends, extends, updates and closes a zaak, and names a bad part', async () => {
    const [config] = await blocks('json');
    const [serve] = await blocks('sh', 'serve');
    assert.match(serve, /--config handelingen\.json/);
    const dir = await mkdtemp(path.join(tmpdir(), 'handelingen-readme-'));
    await writeFile(path.join(dir, 'handelingen.json'), config);
    const server = spawnTs('src/cli.ts', ['serve', '--development', '--database', 'memory', '--port', '0', '--config', path.join(dir, 'handelingen.json')]);
    try {
      const [, base] = await waitForOutput(server, /serving (http:\/\/\S+) \(listening on/);
      const origin = new URL(base).origin;
      const script = (await blocks('sh', 'handelingen')).join('\n').replaceAll('http://localhost:8000', origin);
      assert.ok(script.includes('zaak_afsluiten'));
      const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', `curl() { command curl -sS "$@"; }\n${script}`]);
      assert.deepEqual(stdout.trim().split('\n'), [
        '2 rollen, 1 zaakobject',
        'Wacht op de aannemer',
        'P14D',
        'Meldde de tegel, Stratenmaker',
        '2026-11-24 vernietigen 2027-11-24',
        '400 rollen.1.betrokkeneType invalid_choice',
      ]);
    } finally {
      server.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
