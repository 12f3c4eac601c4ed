import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { consoleLogger, createRegistry, type Plugin } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { eventually } from './helpers/eventually.js';
import { startRegistry, testCatalog, zaakInput, type TestServer } from './helpers/registry.js';
import { startZgwWorld, type ZgwWorld } from './helpers/zgw-world.js';

/** The value of one sample (name with its labels as Prometheus prints them), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Each write enqueues one delivery, which its handler delivers the first time and refuses ever after. */
function deliveringPlugin(): Plugin {
  let calls = 0;
  return {
    name: 'metrics-probe',
    setup(api) {
      api.addDeliveryHandler('metrics-probe', async () => {
        if (calls++ > 0) throw new Error('refused by the probe');
      });
    },
    afterWrite: async (ctx) => ctx.registry.outbox.enqueue(ctx.tx!, { kind: 'metrics-probe', target: 'probe', payload: { id: 1 } }),
  };
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

for (const backend of BACKENDS) {
  describe(`Prometheus metrics (${backend.name})`, () => {
    let server: TestServer;
    let world: ZgwWorld;
    before(async () => {
      world = await startZgwWorld();
      server = await startRegistry(await backend.open(), {
        catalog: undefined,
        remote: { allowedHosts: world.allowedHosts },
        plugins: [deliveringPlugin()],
        outbox: { pollIntervalMs: 50, maxAttempts: 1 },
      });
    });
    after(async () => {
      await server.close();
      await world.close();
    });

    it('counts requests by operation id and status class, remote fetches by host and outcome, catalog cache hits and misses, outbox and pool', async () => {
      for (let i = 0; i < 2; i++) assert.equal((await server.request('/zaken', { method: 'POST', json: zaakInput({ zaaktype: world.zaaktype }) })).status, 201);
      assert.equal((await server.request('/zaken/not-a-uuid-evil-value')).status, 404);
      assert.equal((await server.request('/no-such-path-evil-value?evil-value=1')).status, 404);
      await server.registry.outbox.deliverDue();
      // The background dispatcher may still hold one it claimed first: wait until both are settled.
      await eventually(async () => {
        const counts = await server.registry.outbox.counts();
        assert.equal(counts.delivered + counts.gaveUp, 2, JSON.stringify(counts));
      });
      const origin = new URL(server.base).origin;
      const response = await fetch(`${origin}/metrics`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      assert.equal(sample(text, 'zaakregister_http_request_duration_seconds_count{operation="zaak_create",status_class="2xx"}'), 2);
      assert.equal(sample(text, 'zaakregister_http_request_duration_seconds_count{operation="zaak_retrieve",status_class="4xx"}'), 1);
      assert.equal(sample(text, 'zaakregister_http_request_duration_seconds_count{operation="unrouted",status_class="4xx"}'), 1);
      // Bounded labels: nothing a client sent becomes a label value.
      assert.ok(!text.includes('evil'), 'a client-supplied value became a label');
      assert.equal(sample(text, 'zaakregister_http_requests_in_flight'), 0);
      assert.ok(sample(text, `zaakregister_remote_fetch_duration_seconds_count{host="${world.catalog.host}",outcome="ok"}`)! >= 1);
      assert.ok(sample(text, 'zaakregister_catalog_cache_lookups_total{result="miss"}')! >= 1);
      assert.ok(sample(text, 'zaakregister_catalog_cache_lookups_total{result="hit"}')! >= 1);
      assert.equal(sample(text, 'zaakregister_outbox_deliveries_total{result="delivered"}'), 1);
      assert.equal(sample(text, 'zaakregister_outbox_deliveries_total{result="gave_up"}'), 1);
      assert.equal(sample(text, 'zaakregister_outbox_pending'), 0);
      assert.equal(sample(text, 'zaakregister_outbox_oldest_pending_seconds'), 0);
      assert.equal(sample(text, 'zaakregister_db_pool_connections{state="waiting"}'), 0);
      assert.notEqual(sample(text, 'zaakregister_db_pool_connections{state="in_use"}'), undefined);
      assert.notEqual(sample(text, 'process_cpu_user_seconds_total'), undefined);
    });

    it('mounts as registry.metrics in a host app', async () => {
      const app = express().get('/internal/metrics', server.registry.metrics);
      const host = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => host.once('listening', resolve));
      try {
        const text = await (await fetch(`http://127.0.0.1:${(host.address() as AddressInfo).port}/internal/metrics`)).text();
        assert.notEqual(sample(text, 'zaakregister_http_requests_in_flight'), undefined);
      } finally {
        host.close();
      }
    });
  });
}

describe('metrics on a port of their own', () => {
  it('serves /metrics only on metricsPort, not beside the API', async () => {
    const registry = await createRegistry({ storage: await BACKENDS[0].open(), preset: 'none', catalog: testCatalog(), logger: consoleLogger('silent') });
    try {
      const metricsPort = await freePort();
      const api = await registry.listen(0, '127.0.0.1', { metricsPort });
      const origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      assert.equal((await fetch(`${origin}/metrics`)).status, 404);
      assert.equal((await fetch(`${origin}/healthz`)).status, 200);
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(await metrics.text(), /zaakregister_http_requests_in_flight/);
    } finally {
      await registry.close();
    }
  });
});

describe('metrics when a metric cannot be read', () => {
  it('reads the outbox once per scrape, and answers 503 (the process lives on) when the database is gone', async () => {
    const registry = await createRegistry({ storage: await BACKENDS[0].open(), preset: 'none', catalog: testCatalog(), logger: consoleLogger('silent') });
    try {
      const api = await registry.listen(0, '127.0.0.1');
      const origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const outboxQueries: string[] = [];
      const knex = registry.services.storage.knex;
      knex.on('query', (query: { sql: string }) => void (/\boutbox\b/.test(query.sql) && outboxQueries.push(query.sql)));
      const scraped = await fetch(`${origin}/metrics`);
      assert.equal(scraped.status, 200);
      assert.match(await scraped.text(), /zaakregister_outbox_pending 0/);
      assert.equal(outboxQueries.length, 1, outboxQueries.join('\n'));

      await knex.destroy();
      const failed = await fetch(`${origin}/metrics`);
      assert.equal(failed.status, 503);
      assert.match(await failed.text(), /^metrics unavailable: /);
      assert.equal((await fetch(`${origin}/healthz`)).status, 200);
    } finally {
      await registry.close().catch(() => undefined);
    }
  });
});
