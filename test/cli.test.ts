import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pgliteStorage } from '../src/index.js';
import { exitCode, spawnTs, waitForOutput } from './helpers/spawn.js';

describe('CLI and the embedded data directory', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('serve starts on a PGlite directory, answers, refuses a second process on the directory, and stops cleanly on SIGTERM', async () => {
    const dataDir = path.join(dir, 'data');
    const server = spawnTs('src/cli.ts', ['serve', '--database', dataDir, '--development', '--port', '0']);
    try {
      const [, base] = await waitForOutput(server, /serving (http:\/\/\S+)/);
      assert.match(server.output(), /DEVELOPMENT MODE/);
      const created = await fetch(`${base}/zaken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ zaaktype: 'http://localhost:8000/catalogi/api/v1/zaaktypen/0119dd4e-7be9-477e-bccf-75023b1453c1', bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2024-01-01' }),
      });
      assert.equal(created.status, 201);

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

  it('migrate applies the migrations once; check-config reports problems by key', async () => {
    const dataDir = path.join(dir, 'data');
    const first = spawnTs('src/cli.ts', ['migrate', '--database', dataDir]);
    assert.equal(await exitCode(first), 0, first.output());
    assert.match(first.output(), /applied: core\/001_zaak/);
    const second = spawnTs('src/cli.ts', ['migrate'], { DATABASE_URL: dataDir });
    assert.equal(await exitCode(second), 0, second.output());
    assert.match(second.output(), /database is up to date/);

    const good = path.join(dir, 'good.json');
    await writeFile(good, JSON.stringify({ port: 8080, database: 'memory', allowedHosts: ['catalogi.example.nl'], catalog: { type: 'http' } }));
    const ok = spawnTs('src/cli.ts', ['check-config', '--config', good]);
    assert.equal(await exitCode(ok), 0, ok.output());
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ port: 'acht', kleur: 'rood', catalog: { type: 'static' } }));
    const refused = spawnTs('src/cli.ts', ['check-config', '--config', bad]);
    assert.equal(await exitCode(refused), 1);
    assert.match(refused.output(), /port: .*\(invalid\)/);
    assert.match(refused.output(), /kleur: .*\(unknown\)/);
  });
});
