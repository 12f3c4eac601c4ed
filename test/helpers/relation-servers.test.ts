import assert from 'node:assert/strict';
import { startRelationRegistry, type RelationRegistryServer } from './relation-servers.js';
import { startNotificatiesApi, type NotificatiesApiServer } from './zgw-servers.js';

const ZAAK = 'http://zaken.test/zaken/api/v1/zaken/1';

async function call(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(2000),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('test stand-in servers', () => {
  describe('failure modes', () => {
    let registry: RelationRegistryServer;
    beforeEach(async () => {
      registry = await startRelationRegistry('documenten');
    });
    afterEach(() => registry.close());

    it('error: answers 500 and records the request', async () => {
      await registry.setMode('error');
      const { status, body } = await call(registry.resource());
      assert.equal(status, 500);
      assert.deepEqual(body, { detail: 'storing' });
      assert.equal(registry.requests.length, 1);
    });

    it('hang: records the request and never answers until the mode changes', async () => {
      const document = registry.resource();
      await registry.setMode('hang');
      await assert.rejects(fetch(document, { signal: AbortSignal.timeout(300) }), { name: 'TimeoutError' });
      assert.equal(registry.requests.length, 1);
      await registry.setMode('ok');
      assert.equal((await call(document)).status, 200);
    });

    it('refuse: connections are refused, then the same URL works again', async () => {
      const document = registry.resource();
      assert.equal((await call(document)).status, 200); // leaves a kept-alive connection the refusal must end
      await registry.setMode('refuse');
      await assert.rejects(fetch(document), (error: any) => error.cause?.code === 'ECONNREFUSED');
      await registry.setMode('ok');
      assert.equal((await call(document)).status, 200);
    });

    it('close works in every mode', async () => {
      for (const mode of ['hang', 'refuse', 'error'] as const) {
        const other = await startRelationRegistry('verzoeken');
        await other.setMode(mode);
        if (mode === 'hang') fetch(other.resource()).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 50));
        await other.close();
      }
    });
  });

  describe('relation registries', () => {
    for (const [kind, collection, field] of [
      ['documenten', 'objectinformatieobjecten', 'informatieobject'],
      ['verzoeken', 'objectverzoeken', 'verzoek'],
      ['contactmomenten', 'objectcontactmomenten', 'contactmoment'],
    ] as const) {
      it(`${kind}: creates, refuses a duplicate, filters and deletes ${collection}`, async () => {
        const registry = await startRelationRegistry(kind);
        try {
          const own = registry.resource({ kenmerk: 'x' });
          assert.ok(own.startsWith(`${registry.url}/`));
          const { body: shown } = await call(own);
          assert.equal(shown.url, own);
          assert.equal(shown.kenmerk, 'x');
          if (kind === 'documenten') assert.equal(shown.vertrouwelijkheidaanduiding, 'openbaar');

          const relations = `${registry.url}/${collection}`;
          const created = await call(relations, 'POST', { object: ZAAK, objectType: 'zaak', [field]: own });
          assert.equal(created.status, 201);
          assert.deepEqual(registry.relations, [created.body]);
          const duplicate = await call(relations, 'POST', { object: ZAAK, objectType: 'zaak', [field]: own });
          assert.equal(duplicate.status, 400);
          assert.deepEqual(duplicate.body.invalidParams.map((p: any) => [p.name, p.code]), [['nonFieldErrors', 'unique']]);
          assert.equal((await call(relations, 'POST', { object: ZAAK, [field]: own })).status, 400);
          assert.equal((await call(relations, 'POST', { object: ZAAK, objectType: 'taak', [field]: own })).status, 400);

          const filter = (query: string) => call(`${relations}?${query}`).then((r) => r.body);
          assert.deepEqual(await filter(`object=${encodeURIComponent(ZAAK)}&${field}=${encodeURIComponent(own)}`), [created.body]);
          assert.deepEqual(await filter(`object=${encodeURIComponent(`${ZAAK}0`)}`), []);
          assert.equal((await call(created.body.url)).status, 200);
          assert.equal((await call(created.body.url, 'DELETE')).status, 204);
          assert.equal((await call(created.body.url, 'DELETE')).status, 404);
          assert.deepEqual(registry.relations, []);
          assert.equal((await call(`${registry.url}/onbekend`)).status, 404);
          assert.equal(registry.requests.at(-1)?.authorization, 'Bearer test');
        } finally {
          await registry.close();
        }
      });
    }
  });

  describe('Notificaties API', () => {
    let nrc: NotificatiesApiServer;
    beforeEach(async () => {
      nrc = await startNotificatiesApi();
    });
    afterEach(() => nrc.close());

    it('registers kanalen and accepts notifications only on one', async () => {
      const notificatie = { kanaal: 'zaken', hoofdObject: ZAAK, resource: 'zaak', resourceUrl: ZAAK, actie: 'create', aanmaakdatum: new Date().toISOString() };
      const refused = await call(`${nrc.url}/notificaties`, 'POST', notificatie);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.invalidParams.map((p: any) => [p.name, p.code]), [['kanaal', 'kanaal_bestaat_niet']]);

      const kanaal = await call(`${nrc.url}/kanaal`, 'POST', { naam: 'zaken', documentatieLink: 'https://zaken.test', filters: ['bronorganisatie'] });
      assert.equal(kanaal.status, 201);
      assert.equal((await call(`${nrc.url}/kanaal`, 'POST', { naam: 'zaken' })).status, 400);
      assert.deepEqual((await call(`${nrc.url}/kanaal?naam=zaken`)).body, [kanaal.body]);
      assert.deepEqual((await call(`${nrc.url}/kanaal?naam=besluiten`)).body, []);

      const sent = await call(`${nrc.url}/notificaties`, 'POST', notificatie);
      assert.equal(sent.status, 201);
      assert.deepEqual(nrc.notificaties, [notificatie]);
    });

    it('has the failure modes too, and `down` still answers 503', async () => {
      await nrc.setMode('error');
      assert.equal((await call(`${nrc.url}/kanaal`)).status, 500);
      await nrc.setMode('refuse');
      await assert.rejects(fetch(`${nrc.url}/kanaal`), (error: any) => error.cause?.code === 'ECONNREFUSED');
      await nrc.setMode('ok');
      nrc.down = true;
      assert.equal((await call(`${nrc.url}/kanaal`)).status, 503);
      assert.equal(nrc.requests.length, 2);
    });
  });
});
