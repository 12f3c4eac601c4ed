import assert from 'node:assert/strict';
import { notifications } from '../plugins/notifications/index.js';
import { BACKENDS } from './helpers/backends.js';
import { startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { startNotificatiesApi, type NotificatiesApiServer } from './helpers/zgw-servers.js';

for (const backend of BACKENDS) {
  describe(`request ids in outbox deliveries (${backend.name})`, () => {
    let nrc: NotificatiesApiServer;
    let server: TestServer;
    before(async () => {
      nrc = await startNotificatiesApi();
      server = await startRegistry(await backend.open(), {
        plugins: [notifications({ url: nrc.url, auth: { clientId: 'zaakregister', secret: 'nrc-geheim' }, documentatieLink: 'https://zaken.example.nl/docs' })],
        outbox: { dispatch: false },
      });
    });
    after(async () => {
      await server.close();
      await nrc.close();
    });

    it('stores the id of the request that caused a delivery and sends it to the remote as X-Request-Id', async () => {
      const created = await server.request('/zaken', { method: 'POST', json: zaakInput(), headers: { 'x-request-id': 'caused-the-notification' } });
      assert.equal(created.status, 201, created.text);
      const [entry] = await server.registry.outbox.list({ kind: 'notifications' });
      assert.equal(entry.requestId, 'caused-the-notification');
      await server.registry.outbox.deliverDue();
      const sent = nrc.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/notificaties'));
      assert.equal(sent.length, 1, JSON.stringify(nrc.requests.map((r) => r.path)));
      assert.equal(sent[0].requestId, 'caused-the-notification');
    });
  });
}
