import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { startTestRegistry, zaakInput, type TestRegistry } from 'zaakregister/testing';
import { BACKENDS } from '../../test/helpers/backends.js';
import { eventually } from '../../test/helpers/eventually.js';
import { startRelationRegistry, type RelationRegistryServer } from '../../test/helpers/relation-servers.js';
import { registryBase, registrySync } from './index.js';

const FAST_OUTBOX = { backoffBaseMs: 20, backoffMaxMs: 100, timeoutMs: 500, pollIntervalMs: 50, maxAttempts: 4, leaseMs: 2000 };

describe('registry-sync: registryBase', () => {
  it('is the resource URL without its collection and id', () => {
    assert.equal(registryBase('https://drc.example.nl/documenten/api/v1/enkelvoudiginformatieobjecten/abc'), 'https://drc.example.nl/documenten/api/v1');
    assert.equal(registryBase('http://127.0.0.1:8000/api/v1/verzoeken/abc/'), 'http://127.0.0.1:8000/api/v1');
  });
});

for (const backend of BACKENDS) {
  describe(`registry-sync plugin on ${backend.name}`, () => {
    let api: TestRegistry;
    let documenten: RelationRegistryServer;
    let verzoeken: RelationRegistryServer;
    let contactmomenten: RelationRegistryServer;
    let zaak: any;
    const post = (path: string, json: unknown) => api.request(path, { method: 'POST', json });
    const relate = (document: string, target = zaak) => post('/zaakinformatieobjecten', { zaak: target.url, informatieobject: document });
    const newZaak = async (overrides: Record<string, unknown> = {}) => (await post('/zaken', zaakInput(overrides))).body;
    const outbox = () => api.registry.outbox;

    before(async () => {
      [documenten, verzoeken, contactmomenten] = await Promise.all([
        startRelationRegistry('documenten'),
        startRelationRegistry('verzoeken'),
        startRelationRegistry('contactmomenten'),
      ]);
      api = await startTestRegistry({
        storage: await backend.open(),
        preset: 'none',
        plugins: [registrySync()],
        remote: {
          allowedHosts: [documenten.host, verzoeken.host, contactmomenten.host],
          credentials: { [documenten.host]: { clientId: 'zaakregister-drc', secret: 'geheim-van-drc' } },
        },
        outbox: FAST_OUTBOX,
      });
    });
    after(async () => {
      await api?.close();
      await Promise.all([documenten, verzoeken, contactmomenten].map((s) => s?.close()));
    });
    beforeEach(async () => {
      await Promise.all([documenten, verzoeken, contactmomenten].map((s) => s.setMode('ok')));
      await api.registry.services.storage.knex('outbox').delete();
      for (const server of [documenten, verzoeken, contactmomenten]) {
        server.relations.length = 0;
        server.requests.length = 0;
      }
      zaak = await newZaak();
    });

    describe('zrc-005: zaakinformatieobjecten mirrored as objectinformatieobjecten', () => {
      it('creates the relation after commit, with a ZGW JWT of the configured client', async () => {
        const document = documenten.resource();
        assert.equal((await relate(document)).status, 201);
        await eventually(() => assert.deepEqual(documenten.relations.map(({ url: _url, ...r }) => r), [{ informatieobject: document, object: zaak.url, objectType: 'zaak' }]));
        const postRequest = documenten.requests.find((r) => r.method === 'POST')!;
        assert.equal(decodeJwt(postRequest.authorization!.replace(/^Bearer /, '')).client_id, 'zaakregister-drc');
        // The row goes once the handler has returned, just after the POST arrived.
        await eventually(async () => assert.equal((await outbox().counts()).pending, 0));
      });

      it('an update keeps one relation; moving it to another document moves the relation; deleting removes it', async () => {
        const [first, second] = [documenten.resource(), documenten.resource()];
        const zio = (await relate(first)).body;
        await eventually(() => assert.equal(documenten.relations.length, 1));
        assert.equal((await api.request(zio.url, { method: 'PATCH', json: { titel: 'Nieuwe titel' } })).status, 200);
        await eventually(async () => assert.equal((await outbox().counts()).pending, 0));
        assert.equal(documenten.relations.length, 1, 'no duplicate relation');

        assert.equal((await api.request(zio.url, { method: 'PUT', json: { zaak: zaak.url, informatieobject: second } })).status, 200);
        await eventually(() => assert.deepEqual(documenten.relations.map((r) => r.informatieobject), [second]));

        assert.equal((await api.request(zio.url, { method: 'DELETE' })).status, 204);
        await eventually(() => assert.deepEqual(documenten.relations, []));
      });

      it('a relation removed by hand is restored by the next update of the zaakinformatieobject', async () => {
        const zio = (await relate(documenten.resource())).body;
        await eventually(() => assert.equal(documenten.relations.length, 1));
        documenten.relations.length = 0;
        await api.request(zio.url, { method: 'PATCH', json: { beschrijving: 'x' } });
        await eventually(() => assert.equal(documenten.relations.length, 1));
      });

      it('follows writes through the service layer, and not those that roll back', async () => {
        const zaken = api.registry.services.zaken;
        const scope = { baseUrl: api.base, actor: { clientId: 'beheer', reason: 'migratie' } };
        const document = documenten.resource();
        const zio = await zaken.createRecord(scope, 'zaakinformatieobject', { zaak: zaak.url, informatieobject: document, titel: 'via beheer' });
        await eventually(() => assert.deepEqual(documenten.relations.map((r) => r.informatieobject), [document]));
        const audit = await api.request(`/zaken/${zaak.uuid}/audittrail`);
        assert.equal(audit.body.at(-1).applicatieId, 'beheer');

        const rolledBack = documenten.resource();
        await assert.rejects(
          api.registry.services.storage.transaction(async (tx) => {
            await zaken.createRecord({ ...scope, tx }, 'zaakinformatieobject', { zaak: zaak.url, informatieobject: rolledBack });
            throw new Error('afgebroken');
          }),
          /afgebroken/,
        );
        await zaken.destroyRecord(scope, 'zaakinformatieobject', String(zio.url));
        await eventually(() => assert.deepEqual(documenten.relations, []));
        assert.equal(documenten.requests.filter((r) => r.path.includes(encodeURIComponent(rolledBack))).length, 0, 'nothing sent for the rolled-back write');
      });

      it('when the documents registry is down the API still answers 201; the relation follows once it is back', async () => {
        for (const mode of ['error', 'refuse', 'hang'] as const) {
          await documenten.setMode(mode);
          const document = documenten.resource();
          assert.equal((await relate(document)).status, 201, mode);
          await eventually(() => assert.ok(documenten.requests.length > 0 || mode === 'refuse'));
          assert.ok(!documenten.relations.some((r) => r.informatieobject === document), mode);
          await documenten.setMode('ok');
          await eventually(() => assert.ok(documenten.relations.some((r) => r.informatieobject === document), mode));
        }
        await eventually(async () => assert.equal((await outbox().counts()).pending, 0));
      });

      it('gives up after the maximum attempts: listed as failed, delivered after a retry', async () => {
        await documenten.setMode('error');
        const document = documenten.resource();
        await relate(document);
        const [failed] = await eventually(async () => {
          const list = await outbox().list({ status: 'failed' });
          assert.equal(list.length, 1);
          return list;
        });
        assert.equal(failed.kind, 'registry-sync');
        assert.equal(failed.target, documenten.host);
        assert.equal(failed.attempts, FAST_OUTBOX.maxAttempts);
        assert.match(failed.lastError!, /500/);
        await documenten.setMode('ok');
        assert.equal(await outbox().retry({ status: 'failed' }), 1);
        await eventually(() => assert.deepEqual(documenten.relations.map((r) => r.informatieobject), [document]));
      });

      it('a link to a host that is not allowed is refused (400 bad-url), nothing stored or sent', async () => {
        const response = await relate('https://elders.example.nl/api/v1/enkelvoudiginformatieobjecten/1');
        assert.equal(response.status, 400);
        assert.deepEqual(response.body.invalidParams.map((p: any) => [p.name, p.code]), [['informatieobject', 'bad-url']]);
        assert.equal((await api.request(`/zaakinformatieobjecten?zaak=${encodeURIComponent(zaak.url)}`)).body.length, 0);
        assert.equal((await outbox().counts()).pending, 0);
      });

      it('destroying a zaak removes the relations of its documents and those of its deelzaken', async () => {
        const deelzaak = await newZaak({ hoofdzaak: zaak.url });
        await relate(documenten.resource());
        await relate(documenten.resource(), deelzaak);
        await eventually(() => assert.equal(documenten.relations.length, 2));
        assert.equal((await api.request(zaak.url, { method: 'DELETE' })).status, 204);
        await eventually(() => assert.deepEqual(documenten.relations, []));
      });
    });

    for (const [path, field, rule, server] of [
      ['/zaakverzoeken', 'verzoek', 'zrc-024', () => verzoeken],
      ['/zaakcontactmomenten', 'contactmoment', 'zrc-025', () => contactmomenten],
    ] as const) {
      it(`${rule}: ${path} mirrored in their registry, created and deleted`, async () => {
        const remote = server();
        const resource = remote.resource();
        const link = await post(path, { zaak: zaak.url, [field]: resource });
        assert.equal(link.status, 201);
        await eventually(() => assert.deepEqual(remote.relations.map(({ url: _url, ...r }) => r), [{ [field]: resource, object: zaak.url, objectType: 'zaak' }]));
        assert.equal((await api.request(link.body.url, { method: 'DELETE' })).status, 204);
        await eventually(() => assert.deepEqual(remote.relations, []));
        assert.deepEqual(documenten.requests, [], 'only the registry that holds the resource is called');
      });
    }
  });
}
