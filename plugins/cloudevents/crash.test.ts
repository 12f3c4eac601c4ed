import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { postgresStorage, type Storage } from '../../src/index.js';
import { demoZaaktype } from '../../src/demo.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { eventually } from '../../test/helpers/eventually.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { exitCode, spawnTs, waitForOutput } from '../../test/helpers/spawn.js';
import { cloudevents } from './index.js';
import { accept, startTestSink, type TestSink } from './test-sink.js';

const SOURCE = 'urn:nld:oin:00000001823288444000:systeem:zaakregister';
const ZAAK = { bronorganisatie: '517439943', verantwoordelijkeOrganisatie: '517439943', startdatum: '2024-01-01' };
const idOf = (body: string) => (JSON.parse(body) as { id: string }).id;

for (const backend of BACKENDS) {
  describe(`cloudevents across a kill -9 on ${backend.name}`, function () {
    // Two Node processes through tsx, one after the other, each opening the database.
    this.timeout(360_000);
    let dir: string;
    let sink: TestSink;
    let storage: Storage | undefined;

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'zaakregister-cloudevents-'));
      sink = await startTestSink();
    });
    after(async () => {
      await storage?.close();
      await sink?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('an event committed but not yet delivered when the registry is killed is delivered after it, with the same id', async () => {
      let database = path.join(dir, 'data');
      if (backend.name === 'PostgreSQL') {
        storage = await backend.open();
        database = storage.description;
      }
      const config = path.join(dir, 'config.json');
      await writeFile(
        config,
        JSON.stringify({
          database,
          plugins: { cloudevents: { source: SOURCE, sinks: [{ id: 'portaal', url: sink.url }] } },
          // The killed process's claim is what the worker waits out: keep it short.
          outbox: { leaseMs: 3000, timeoutMs: 60_000, pollIntervalMs: 100, backoffBaseMs: 50, backoffMaxMs: 200 },
        }),
      );
      // The sink takes the request and never answers: the delivery is in flight when the registry dies.
      sink.respond = () => undefined;
      const children: ReturnType<typeof spawnTs>[] = [];
      try {
        const api = spawnTs('src/cli.ts', ['serve', '--config', config, '--development', '--port', '0']);
        children.push(api);
        const [, base] = await waitForOutput(api, /serving (http:\/\/\S+)/, 180_000);
        const post = async (url: string, body: unknown) => {
          const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
          const text = await response.text();
          assert.ok(response.ok, text);
          return JSON.parse(text) as Record<string, string>;
        };
        const zaaktype = demoZaaktype('meldingOpenbareRuimte', base);
        const statustypen = ((await (await fetch(zaaktype)).json()) as { statustypen: string[] }).statustypen;
        const zaak = await post(`${base}/zaken`, { ...ZAAK, zaaktype });
        await post(`${base}/statussen`, { zaak: zaak.url, statustype: statustypen[0], datumStatusGezet: '2024-01-02T10:00:00Z' });
        await eventually(() => assert.equal(sink.received.length, 1, api.output()), 30_000);
        api.kill('SIGKILL');
        assert.equal(await exitCode(api), null, 'killed, not exited');

        sink.respond = accept;
        const worker = spawnTs('src/cli.ts', ['deliver', '--config', config, '--port', '0']);
        children.push(worker);
        await eventually(() => assert.equal(sink.events().length, 1, worker.output()), 180_000);
        assert.equal(idOf(sink.received[1].body), idOf(sink.received[0].body), 'the same event, the same id');
        assert.equal(sink.events()[0].type, 'nl.overheid.zaken.zaak-gemuteerd');
        assert.equal(sink.events()[0].subject, zaak.uuid);
        worker.kill('SIGTERM');
        assert.equal(await exitCode(worker), 0, worker.output());
      } finally {
        const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
        for (const child of running) child.kill('SIGKILL');
        await Promise.all(running.map((child) => exitCode(child)));
      }
    });
  });
}

// Two instances share one database: PostgreSQL (an embedded PGlite database is one process's).
describe('cloudevents: two instances on one PostgreSQL database', () => {
  const postgres = BACKENDS.find((backend) => backend.name === 'PostgreSQL')!;
  let first: TestServer;
  let second: TestServer;
  let sink: TestSink;

  before(async () => {
    sink = await startTestSink();
    const storage = await postgres.open({ connections: 4 });
    const options = { plugins: [cloudevents({ source: SOURCE, sinks: [{ id: 'portaal', url: sink.url }] })], outbox: { pollIntervalMs: 20 } };
    first = await startRegistry(storage, options);
    second = await startRegistry(await postgresStorage({ connection: storage.description }), { ...options, plugins: [cloudevents({ source: SOURCE, sinks: [{ id: 'portaal', url: sink.url }] })] });
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await sink?.close();
  });

  it('deliver each event once', async () => {
    const writes = [];
    for (let i = 0; i < 20; i++) {
      const api = i % 2 ? second : first;
      writes.push(
        (async () => {
          const zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
          const status = await api.request('/statussen', { method: 'POST', json: { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' } });
          assert.equal(status.status, 201, status.text);
        })(),
      );
    }
    await Promise.all(writes);
    await eventually(async () => assert.equal((await first.registry.outbox.counts()).pending, 0));
    const ids = sink.received.map((request) => idOf(request.body));
    assert.equal(ids.length, 20);
    assert.equal(new Set(ids).size, 20);
    const byInstance = [first, second].map((api) => api.registry.outbox.counts());
    const delivered = (await Promise.all(byInstance)).map((counts) => counts.delivered);
    assert.equal(delivered[0] + delivered[1], 20, `delivered per instance: ${delivered.join(', ')}`);
  });
});
