import assert from 'node:assert/strict';
import { DeliveryError, type Plugin } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { eventually } from './helpers/eventually.js';
import { startRegistry, type TestServer } from './helpers/registry.js';
import { exitCode, spawnTs } from './helpers/spawn.js';

/** The CLI on the database of a running registry: a PostgreSQL server (an embedded directory is locked by its registry). */
const postgres = BACKENDS.find((b) => b.name === 'PostgreSQL')!;

describe('zaakregister outbox list|retry', () => {
  let api: TestServer;
  let accept = false;
  const delivered: unknown[] = [];
  const sink: Plugin = {
    name: 'sink',
    setup(setup) {
      setup.addDeliveryHandler('sink', async ({ payload }) => {
        if (!accept) throw new DeliveryError('doel weigert', { permanent: true });
        delivered.push(payload);
      });
    },
  };
  const cli = async (...args: string[]) => {
    const child = spawnTs('src/cli.ts', ['outbox', ...args, '--database', api.registry.services.storage.description]);
    assert.equal(await exitCode(child), 0, child.output());
    return child.output();
  };

  before(async () => {
    api = await startRegistry(await postgres!.open(), { plugins: [sink], outbox: { pollIntervalMs: 50, backoffBaseMs: 20 } });
  });
  after(() => api?.close());

  it('lists a failed delivery and makes it due again; the running registry delivers it', async () => {
    await api.registry.services.storage.transaction((tx) => api.registry.outbox.enqueue(tx, { kind: 'sink', target: 'doel', payload: { n: 1 } }));
    await eventually(async () => assert.equal((await api.registry.outbox.counts()).failed, 1));
    const listed = JSON.parse(await cli('list', '--status', 'failed', '--json'));
    assert.equal(listed.failed, 1);
    assert.deepEqual(
      listed.entries.map((e: any) => [e.kind, e.target, e.status, e.attempts, e.lastError]),
      [['sink', 'doel', 'failed', 1, 'doel weigert']],
    );
    assert.match(await cli('list'), /failed: 1/);
    accept = true;
    assert.match(await cli('retry'), /^1 deliveries due again/);
    await eventually(() => assert.deepEqual(delivered, [{ n: 1 }]));
    assert.match(await cli('list'), /pending: 0, failed: 0/);
  });
});
