import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import knexFactory from 'knex';
import { consoleLogger, createRegistry, postgresStorage, type Registry } from '../src/index.js';
import { POSTGRES_URL } from './helpers/backends.js';
import { testCatalog } from './helpers/registry.js';

const KIND = 'slow-webhook';
const LEASE_MS = 300;
/** The sink answers this much later: several leases. */
const SINK_DELAY_MS = 1_500;

/** A webhook sink on 127.0.0.1 that answers 204 after `delayMs`, counting what it received per delivery id. */
async function slowSink(delayMs = SINK_DELAY_MS): Promise<{ url: string; received: Map<number, number>; server: Server }> {
  const received = new Map<number, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: number };
      received.set(id, (received.get(id) ?? 0) + 1);
      setTimeout(() => res.writeHead(204).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

/** A registry instance on `database` whose dispatcher polls often, with a lease shorter than the sink's answer. */
async function instance(database: string, sink: string, warnings: string[] = []): Promise<Registry> {
  return createRegistry({
    storage: await postgresStorage({ connection: database }),
    preset: 'none',
    authorization: 'development',
    catalog: testCatalog(),
    logger: { ...consoleLogger('silent'), warn: (message: string) => void warnings.push(message) },
    outbox: { leaseMs: LEASE_MS, timeoutMs: 10_000, pollIntervalMs: 20, backoffBaseMs: 50, backoffMaxMs: 100 },
    plugins: [
      {
        name: 'slow-webhook',
        setup(api) {
          api.addDeliveryHandler(KIND, async (delivery) => {
            const response = await fetch(sink, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: delivery.id }), signal: delivery.signal });
            await response.arrayBuffer();
            if (!response.ok) throw new Error(`HTTP ${response.status}`);
          });
        },
      },
    ],
  });
}

async function freshDatabase() {
  const admin = knexFactory({ client: 'pg', connection: POSTGRES_URL, pool: { min: 0, max: 1 } });
  const name = `zaakregister_lease_${randomBytes(6).toString('hex')}`;
  await admin.raw('create database ??', [name]);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return { admin, name, url };
}

describe('outbox leases across two instances on one PostgreSQL database', () => {
  it(`delivers once a delivery slower than its lease (${SINK_DELAY_MS} ms against ${LEASE_MS} ms): the lease is renewed while it runs`, async function () {
    this.timeout(60_000);
    const { admin, name, url } = await freshDatabase();
    const sink = await slowSink();
    const instances: Registry[] = [];
    try {
      instances.push(await instance(url.toString(), sink.url), await instance(url.toString(), sink.url));
      const [first] = instances;
      await first.services.storage.transaction(async (tx) => {
        for (let n = 0; n < 4; n++) await first.outbox.enqueue(tx, { kind: KIND, target: new URL(sink.url).host, payload: { n } });
      });
      const deadline = Date.now() + 30_000;
      while ((await first.outbox.counts()).pending > 0 && Date.now() < deadline) await sleep(50);
      assert.equal((await first.outbox.counts()).pending, 0, 'delivered');
      // Another lease or two for a second claim that would come late.
      await sleep(3 * LEASE_MS);
      assert.equal(sink.received.size, 4);
      assert.deepEqual([...sink.received.values()], [1, 1, 1, 1], `attempts per delivery: ${JSON.stringify([...sink.received])}`);
    } finally {
      for (const registry of instances) await registry.close();
      sink.server.close();
      await admin.raw('drop database if exists ?? with (force)', [name]);
      await admin.destroy();
    }
  });

  it('does not report a lease as lost when its delivery was recorded while the lease was renewed', async function () {
    this.timeout(60_000);
    const { admin, name, url } = await freshDatabase();
    // Answered at once: deliveries are recorded (their rows deleted) all the time, renewals run every 100 ms beside them.
    const sink = await slowSink(0);
    const warnings: string[] = [];
    let registry: Registry | undefined;
    try {
      registry = await instance(url.toString(), sink.url, warnings);
      const first = registry;
      for (let batch = 0; batch < 10; batch++) {
        await first.services.storage.transaction(async (tx) => {
          for (let n = 0; n < 50; n++) await first.outbox.enqueue(tx, { kind: KIND, target: `${new URL(sink.url).host}`, payload: { n } });
        });
        await sleep(LEASE_MS / 3);
      }
      const deadline = Date.now() + 30_000;
      while ((await first.outbox.counts()).pending > 0 && Date.now() < deadline) await sleep(50);
      assert.equal((await first.outbox.counts()).pending, 0, 'delivered');
      assert.equal(sink.received.size, 500);
      assert.deepEqual(warnings.filter((warning) => warning.includes('lease')), []);
    } finally {
      await registry?.close();
      sink.server.close();
      await admin.raw('drop database if exists ?? with (force)', [name]);
      await admin.destroy();
    }
  });
});
