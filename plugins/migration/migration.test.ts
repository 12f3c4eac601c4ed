import assert from 'node:assert/strict';
import { migration } from './index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { testApps } from '../../test/helpers/apps.js';
import { eventually } from '../../test/helpers/eventually.js';
import { startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { zaakBundles } from '../../test/helpers/zaak-bundles.js';

for (const backend of BACKENDS) {
  describe(`migration plugin: the import API under /_import/jobs (${backend.name})`, function () {
    this.timeout(120_000);
    const apps = testApps();
    let api: TestServer;
    const as = async (client: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) => api.request(path, { ...init, headers: await apps.headers(client) });

    before(async () => {
      api = await startRegistry(await backend.open(), { authorization: apps.authorization, plugins: [migration({ allowedClients: ['alles'], maxBundles: 12 })] });
    });
    after(() => api?.close());

    it('refuses a client without heeftAlleAutorisaties or zaken.importeren with 403', async () => {
      const refused = await as('beperkt', '/_import/jobs', { method: 'POST', json: {} });
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('content-type'), 'application/problem+json');
      assert.equal((await as('beperkt', '/_import/jobs/00000000-0000-4000-8000-000000000000')).status, 403);
    });

    it('imports uploaded bundles as a job and reports it verified, with no notification', async () => {
      const created = await as('alles', '/_import/jobs', { method: 'POST', json: { rewrite: [{ from: 'https://oud.example.nl/zaken/api/v1', to: api.base }] } });
      assert.equal(created.status, 201, created.text);
      const job = created.body.url as string;
      const bundles = [...zaakBundles(10, 'https://oud.example.nl/zaken/api/v1', { prefix: 'api' })];
      assert.equal((await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles: bundles.slice(0, 6) } })).body.received, 6);
      assert.equal((await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles: bundles.slice(6) } })).body.received, 10);
      assert.equal((await as('alles', `${job}/start`, { method: 'POST' })).status, 202);
      const finished = await eventually(async () => {
        const state = (await as('alles', job)).body;
        assert.equal(state.status, 'finished');
        return state;
      }, 60_000);
      assert.equal(finished.counters.imported, 10);
      const report = await as('alles', `${job}/report`);
      assert.equal(report.body.clean, true, JSON.stringify(report.body.lines.filter((l: any) => l.differences.length).slice(0, 2)));
      const csv = await as('alles', `${job}/report?format=csv`);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      assert.equal(csv.text.split('\n')[0], 'line,zaak_uuid,identificatie,resultaat,opmerking');
      assert.equal((await as('alles', `/zaken/${bundles[0].zaak && (bundles[0].zaak as any).uuid}`)).status, 200);
      const { rows } = await api.registry.services.storage.knex.raw('select count(*)::int as n from outbox');
      assert.equal(rows[0].n, 0);
      assert.equal((await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles: bundles.slice(0, 1) } })).status, 409);
    });

    it('refuses more bundles than a job may hold (413), and input that is no bundle (400)', async () => {
      const job = (await as('alles', '/_import/jobs', { method: 'POST', json: {} })).body.url as string;
      const bundles = [...zaakBundles(13, api.base, { prefix: 'te-veel' })];
      const tooMany = await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles } });
      assert.equal(tooMany.status, 413);
      const notBundles = await as('alles', `${job}/bundles`, { method: 'POST', json: { bundles: [{ geen: 'zaak' }] } });
      assert.equal(notBundles.status, 400);
      assert.ok(notBundles.body.invalidParams.length > 0);
    });
  });
}
