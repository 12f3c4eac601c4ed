import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { demoZaaktype } from '../src/demo.js';
import type { Storage } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { eventually } from './helpers/eventually.js';
import { exitCode, spawnTs, waitForOutput } from './helpers/spawn.js';
import { startNotificatiesApi, type NotificatiesApiServer } from './helpers/zgw-servers.js';

const ZAAK = { bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2024-01-01' };

/** A port nobody listens on now (the CLI's `--metrics-port` is logged as given). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The value of a metric line (`name{labels} value`) in a Prometheus exposition. */
function metric(exposition: string, line: RegExp): number {
  const match = exposition.split('\n').find((l) => line.test(l));
  assert.ok(match, `no metric line ${line} in:\n${exposition}`);
  return Number(match.split(' ').pop());
}

for (const backend of BACKENDS) {
  describe(`zaakregister deliver on ${backend.name}`, function () {
    // Three Node processes through tsx, one after the other: slow on a busy 2-core machine.
    this.timeout(180_000);
    let dir: string;
    let nrc: NotificatiesApiServer;
    let storage: Storage | undefined;
    let database: string;

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-deliver-'));
      nrc = await startNotificatiesApi();
      nrc.kanalen.push({ url: `${nrc.url}/kanaal/1`, naam: 'zaken', documentatieLink: '', filters: [] });
      if (backend.name === 'PGlite') {
        // An embedded database is one process's at a time: a directory the API instance leaves before the worker opens it.
        database = path.join(dir, 'data');
      } else {
        // A database of its own (dropped afterwards); the CLI processes reach it by its URL.
        storage = await backend.open();
        database = storage.description;
      }
    });
    after(async () => {
      await storage?.close();
      await nrc?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('an API instance with "dispatch": false leaves its notifications in the outbox; deliver sends them, serving only its probes and (on --metrics-port) its metrics', async () => {
      const config = path.join(dir, 'config.json');
      await writeFile(
        config,
        JSON.stringify({
          database,
          plugins: { notifications: { url: nrc.url, auth: { clientId: 'zaakregister', secret: 'a-secret-of-at-least-thirty-two-bytes' }, registerKanaal: false } },
          outbox: { dispatch: false, pollIntervalMs: 100 },
        }),
      );

      const api = spawnTs('src/cli.ts', ['serve', '--config', config, '--development', '--port', '0']);
      try {
        const [, base] = await waitForOutput(api, /serving (http:\/\/\S+)/);
        const created = await fetch(`${base}/zaken`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...ZAAK, zaaktype: demoZaaktype('meldingOpenbareRuimte', base) }),
        });
        assert.equal(created.status, 201, await created.clone().text());
        const zaak = (await created.json()) as { url: string };
        const metrics = await (await fetch(`${new URL(base).origin}/metrics`)).text();
        assert.equal(metric(metrics, /^zaakregister_outbox_pending /), 1);
        // Its shutdown would finish deliveries in flight: none were started.
        api.kill('SIGTERM');
        assert.equal(await exitCode(api), 0, api.output());
        assert.equal(nrc.notificaties.length, 0, 'the API instance delivered nothing');

        const metricsPort = await freePort();
        const worker = spawnTs('src/cli.ts', ['deliver', '--config', config, '--port', '0', '--metrics-port', String(metricsPort)]);
        try {
          const [, port, logged] = await waitForOutput(worker, /"msg":"delivering the outbox of [^"]+; \/healthz and \/readyz on port (\d+), \/metrics on port (\d+)"/);
          assert.equal(Number(logged), metricsPort);
          assert.doesNotMatch(worker.output(), /DEVELOPMENT MODE/, 'the worker authenticates nobody: it serves no API');
          const origin = `http://127.0.0.1:${port}`;
          await eventually(() => assert.equal(nrc.notificaties.length, 1, 'the worker delivered the notification'));
          assert.deepEqual(
            [nrc.notificaties[0].kanaal, nrc.notificaties[0].resource, nrc.notificaties[0].actie, nrc.notificaties[0].hoofdObject],
            ['zaken', 'zaak', 'create', zaak.url],
          );
          assert.equal((await fetch(`${origin}/healthz`)).status, 200);
          assert.equal((await fetch(`${origin}/readyz`)).status, 200);
          await eventually(async () => {
            const exposition = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
            assert.equal(metric(exposition, /^zaakregister_outbox_deliveries_total\{result="delivered"\}/), 1, 'the delivery is counted');
            assert.equal(metric(exposition, /^zaakregister_outbox_pending /), 0, 'the outbox is empty');
          });
          assert.equal((await fetch(`${origin}/metrics`)).status, 404, 'with --metrics-port, metrics on that port only');
          const api = await fetch(`${origin}/zaken/api/v1/zaken`);
          assert.equal(api.status, 404, 'no API is served');
          assert.match(api.headers.get('content-type') ?? '', /application\/problem\+json/);

          worker.kill('SIGTERM');
          assert.equal(await exitCode(worker), 0, worker.output());
          assert.match(worker.output(), /SIGTERM received, shutting down/);
        } finally {
          worker.kill('SIGKILL');
        }
      } finally {
        api.kill('SIGKILL');
      }
    });
  });
}

describe('zaakregister deliver, refused', () => {
  it('on memory, which no other process writes to: a one-line reason pointing at the help', async () => {
    const child = spawnTs('src/cli.ts', ['deliver', '--database', 'memory']);
    assert.equal(await exitCode(child), 2);
    assert.match(child.output(), /^zaakregister: deliver works on the database registries write to \(a PostgreSQL URL or a PGlite directory\), not on memory; see zaakregister deliver --help\n$/);
  });
});
