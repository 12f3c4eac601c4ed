import assert from 'node:assert/strict';
import { consoleLogger, createRegistry, OPERATION_IDS, type Operation, type Plugin } from '../src/index.js';
import { startTestRegistry, zaakInput, type TestRegistry } from '../src/testing/index.js';

describe('hooks limited to operations', () => {
  const quiet = { storage: 'memory' as const, logger: consoleLogger('silent') };

  it('OPERATION_IDS names every operation the bare core serves, and nothing else', async () => {
    let served: string[] = [];
    const probe: Plugin = { name: 'probe', setup: (api) => void (served = api.operations().map((operation) => operation.id)) };
    const registry = await createRegistry({ ...quiet, preset: 'none', plugins: [probe] });
    await registry.close();
    // The OpenAPI documents and the API root are added once every plugin is set up.
    assert.deepEqual([...served, 'openapi_json', 'openapi_yaml', 'api_root'].sort(), [...OPERATION_IDS].sort());
    assert.ok(OPERATION_IDS.includes('zaak_retrieve') && OPERATION_IDS.includes('zaak__zoek') && OPERATION_IDS.includes('status_create'));
  });

  it('refuses a hook limited to an unknown operation, suggesting the closest id', async () => {
    const typo: Plugin = { name: 'typo', authorize: { operations: ['zaak_read'], handler: () => {} } };
    await assert.rejects(createRegistry({ ...quiet, plugins: [typo] }), {
      message: 'plugin "typo": authorize is limited to operation "zaak_read", which this registry does not serve (did you mean "zaak_retrieve"?)',
    });
    const domain: Plugin = { name: 'domain', resourceChanged: { operations: ['zaak_create'], handler: () => {} } };
    await assert.rejects(createRegistry({ ...quiet, plugins: [domain] }), /resourceChanged runs outside requests, so it cannot be limited to operations/);
  });

  describe('on a running registry', () => {
    let api: TestRegistry;
    const seen: string[] = [];
    const own: Operation = {
      id: 'zaak_teller',
      method: 'get',
      path: '/zaakteller',
      action: 'retrieve',
      write: false,
      authenticated: false,
      execute: async (ctx) => void (ctx.response.body = { ok: true }),
      openapi: { summary: 'Een teller.', successStatus: 200 },
    };
    const limited: Plugin = {
      name: 'limited',
      setup: (api) => api.addOperation(own),
      onRequest: { operations: ['zaak_retrieve', 'zaak_teller'], handler: (ctx) => void seen.push(ctx.operation.id) },
      serialize: { operations: ['zaak_retrieve'], handler: (body) => ({ ...(body as object), gezien: true }) },
    };

    before(async () => (api = await startTestRegistry({ plugins: [limited] })));
    after(() => api?.close());

    it("runs the hook only for its operations, a plugin's own included", async () => {
      const zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
      seen.length = 0;
      const detail = await api.request(`/zaken/${zaak.uuid}`);
      const list = await api.request('/zaken');
      assert.equal((await api.request('/zaakteller')).status, 200);
      assert.deepEqual(seen, ['zaak_retrieve', 'zaak_teller']);
      assert.equal(detail.body.gezien, true);
      assert.equal(list.body.gezien, undefined, 'serialize limited to zaak_retrieve leaves the list alone');
    });
  });
});
