import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createRegistry, consoleLogger } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { startRegistry, testCatalog, type TestServer } from './helpers/registry.js';

const json = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as { status: string; checks?: Record<string, string> } };
};

for (const backend of BACKENDS) {
  describe(`health and readiness (${backend.name})`, () => {
    let server: TestServer;
    let origin: string;
    beforeEach(async () => {
      server = await startRegistry(await backend.open(), { authorization: undefined });
      origin = new URL(server.base).origin;
    });
    afterEach(() => server.close());

    it('serves /healthz and /readyz outside the base path, without authentication, and not in the OpenAPI document', async () => {
      assert.deepEqual(await json(`${origin}/healthz`), { status: 200, body: { status: 'ok' } });
      assert.deepEqual(await json(`${origin}/readyz`), { status: 200, body: { status: 'ready', checks: { shutdown: 'ok', database: 'ok', migrations: 'ok' } } });
      // The API itself refuses the anonymous caller that the probes let in.
      assert.equal((await server.request('/zaken')).status, 401);
      const paths = Object.keys(server.registry.openapi().paths as object);
      assert.ok(paths.length > 10 && !paths.some((p) => /healthz|readyz/.test(p)), paths.join(' '));
    });

    it('readiness is 503 naming the failing check at once when shutdown begins', async () => {
      // A host app's own server stays up, so the handler can be asked while the registry closes.
      const app = express();
      app.get('/ready', server.registry.ready);
      const host = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => host.once('listening', resolve));
      try {
        const closing = server.close();
        const during = await json(`http://127.0.0.1:${(host.address() as AddressInfo).port}/ready`);
        await closing;
        assert.equal(during.status, 503);
        assert.equal(during.body.status, 'unavailable');
        assert.equal(during.body.checks!.shutdown, 'shutting down');
      } finally {
        host.close();
      }
    });
  });

  describe(`readiness and migrations (${backend.name})`, () => {
    it('is 503 until the migrations are applied; health and ready mount in a host app where it wants them', async () => {
      const registry = await createRegistry({ storage: await backend.open(), migrate: false, preset: 'none', catalog: testCatalog(), logger: consoleLogger('silent') });
      const app = express();
      app.get('/ops/live', registry.health);
      app.get('/ops/ready', registry.ready);
      const host = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => host.once('listening', resolve));
      const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}/ops`;
      try {
        assert.deepEqual(await json(`${base}/live`), { status: 200, body: { status: 'ok' } });
        const before = await json(`${base}/ready`);
        assert.equal(before.status, 503);
        assert.deepEqual(before.body.checks, { shutdown: 'ok', database: 'ok', migrations: 'never migrated: run zaakregister migrate' });
        await registry.migrate();
        assert.equal((await json(`${base}/ready`)).status, 200);
      } finally {
        host.close();
        await registry.close();
      }
    });
  });
}
