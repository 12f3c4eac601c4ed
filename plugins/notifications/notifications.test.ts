import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import type { Plugin } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { eventually } from '../../test/helpers/eventually.js';
import { RSIN, TYPES, ZAAKTYPE, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { startNotificatiesApi, type NotificatiesApiServer } from '../../test/helpers/zgw-servers.js';
import { notifications } from './index.js';

const FAST_OUTBOX = { backoffBaseMs: 20, backoffMaxMs: 100, timeoutMs: 500, pollIntervalMs: 50, maxAttempts: 4, leaseMs: 2000 };

/** Fails every write that carries `X-Fail-After-Write`, after the storage write: the transaction rolls back. */
const failAfterWrite: Plugin = {
  name: 'fail-after-write',
  afterWrite(ctx) {
    if (ctx.req.get('x-fail-after-write')) throw new Error('afgebroken na het schrijven');
  },
};

for (const backend of BACKENDS) {
  describe(`notifications plugin on ${backend.name}`, () => {
    let api: TestServer;
    let nrc: NotificatiesApiServer;
    const post = (path: string, json: unknown, headers: Record<string, string> = {}) => api.request(path, { method: 'POST', json, headers });
    const sent = () => nrc.notificaties as any[];
    const settled = () => eventually(async () => assert.equal((await api.registry.outbox.counts()).pending, 0));

    before(async () => {
      nrc = await startNotificatiesApi();
      api = await startRegistry(await backend.open(), {
        plugins: [notifications({ url: nrc.url, auth: { clientId: 'zaakregister', secret: 'nrc-geheim' }, documentatieLink: 'https://zaken.example.nl/docs' }), failAfterWrite],
        outbox: FAST_OUTBOX,
      });
    });
    after(async () => {
      await api?.close();
      await nrc?.close();
    });
    beforeEach(async () => {
      await nrc.setMode('ok');
      await settled();
      await api.registry.services.storage.knex('outbox').delete();
      nrc.notificaties.length = 0;
      nrc.requests.length = 0;
    });

    it('registers kanaal zaken at start, with the kenmerken as filters', async () => {
      await eventually(() => assert.equal(nrc.kanalen.length, 1));
      assert.deepEqual(
        nrc.kanalen.map(({ url: _url, ...k }) => k),
        [{ naam: 'zaken', documentatieLink: 'https://zaken.example.nl/docs', filters: ['bronorganisatie', 'zaaktype', 'vertrouwelijkheidaanduiding'] }],
      );
    });

    it('publishes a zaak’s create, partial_update, update and destroy with its kenmerken, in order, signed', async () => {
      const zaak = (await post('/zaken', zaakInput())).body;
      await api.request(zaak.url, { method: 'PATCH', json: { omschrijving: 'gewijzigd' } });
      await api.request(zaak.url, { method: 'PUT', json: zaakInput({ identificatie: zaak.identificatie }) });
      assert.equal((await api.request(zaak.url, { method: 'DELETE' })).status, 204);
      await eventually(() => assert.equal(sent().length, 4));
      assert.deepEqual(sent().map((n) => n.actie), ['create', 'partial_update', 'update', 'destroy']);
      const [created] = sent();
      assert.deepEqual(Object.keys(created).sort(), ['aanmaakdatum', 'actie', 'hoofdObject', 'kanaal', 'kenmerken', 'resource', 'resourceUrl']);
      assert.equal(created.kanaal, 'zaken');
      assert.equal(created.hoofdObject, zaak.url);
      assert.equal(created.resource, 'zaak');
      assert.equal(created.resourceUrl, zaak.url);
      assert.ok(!Number.isNaN(Date.parse(created.aanmaakdatum)));
      assert.deepEqual(created.kenmerken, { bronorganisatie: RSIN, zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' });
      const auth = nrc.requests.find((r) => r.path.endsWith('/notificaties'))!.authorization!;
      assert.equal(decodeJwt(auth.replace(/^Bearer /, '')).client_id, 'zaakregister');
      // Its calls count in the registry's fetch metrics, under the Notificaties API's host.
      const metrics = await (await fetch(`${new URL(api.base).origin}/metrics`)).text();
      const calls = metrics.match(new RegExp(`zaakregister_remote_fetch_duration_seconds_count\\{host="${new URL(nrc.url).host}",outcome="ok"\\} (\\d+)`));
      assert.ok(calls && Number(calls[1]) >= 4, metrics.split('\n').filter((l) => l.includes('remote_fetch_duration_seconds_count')).join('\n'));
    });

    it('publishes the records and actions the 1.5.1 contract lists, and nothing else', async () => {
      const zaak = (await post('/zaken', zaakInput())).body;
      const status = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
      const rol = await post('/rollen', {
        zaak: zaak.url,
        betrokkeneType: 'natuurlijk_persoon',
        roltype: TYPES.roltypeBehandelaar,
        roltoelichting: 'behandelt',
        betrokkeneIdentificatie: { inpBsn: '111222333' },
      });
      const zio = await post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: 'http://documenten.test/api/v1/enkelvoudiginformatieobjecten/1' });
      await api.request(zio.body.url, { method: 'PATCH', json: { titel: 'niet gepubliceerd' } });
      await api.request(zio.body.url, { method: 'DELETE' });
      await api.request(rol.body.url, { method: 'DELETE' });
      await settled();
      assert.deepEqual(
        sent().map((n) => [n.resource, n.actie, n.resourceUrl]),
        [
          ['zaak', 'create', zaak.url],
          ['status', 'create', status.body.url],
          ['rol', 'create', rol.body.url],
          ['zaakinformatieobject', 'create', zio.body.url],
          ['rol', 'destroy', rol.body.url],
        ],
      );
      assert.ok(sent().every((n) => n.hoofdObject === zaak.url));
    });

    it('a zaak destroyed with its records: one notification, for the zaak', async () => {
      const zaak = (await post('/zaken', zaakInput())).body;
      await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
      await api.request(zaak.url, { method: 'DELETE' });
      await settled();
      assert.deepEqual(sent().map((n) => [n.resource, n.actie]), [['zaak', 'create'], ['status', 'create'], ['zaak', 'destroy']]);
    });

    it('publishes a zaaknotitie’s create, update, partial_update and destroy, the zaak as hoofdObject; not when its zaak takes it along', async () => {
      const zaak = (await post('/zaken', zaakInput())).body;
      const input = { gerelateerdAan: zaak.url, onderwerp: 'Telefoon', tekst: 'Burger belde.' };
      const note = (await post('/zaaknotities', input)).body;
      await api.request(note.url, { method: 'PUT', json: { ...input, tekst: 'Burger belde terug.' } });
      await api.request(note.url, { method: 'PATCH', json: { status: 'definitief' } });
      assert.equal((await api.request(note.url, { method: 'DELETE' })).status, 204);
      const second = (await post('/zaaknotities', input)).body;
      await api.request(zaak.url, { method: 'DELETE' });
      await settled();
      assert.deepEqual(
        sent().map((n) => [n.resource, n.actie, n.resourceUrl]),
        [
          ['zaak', 'create', zaak.url],
          ['zaaknotitie', 'create', note.url],
          ['zaaknotitie', 'update', note.url],
          ['zaaknotitie', 'partial_update', note.url],
          ['zaaknotitie', 'destroy', note.url],
          ['zaaknotitie', 'create', second.url],
          ['zaak', 'destroy', zaak.url],
        ],
      );
      assert.ok(sent().every((n) => n.hoofdObject === zaak.url && n.kanaal === 'zaken'));
      assert.deepEqual(sent()[1].kenmerken, { bronorganisatie: RSIN, zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' });
    });

    it('a write that rolls back publishes nothing', async () => {
      const failed = await post('/zaken', zaakInput(), { 'x-fail-after-write': '1' });
      assert.equal(failed.status, 500);
      assert.equal((await api.registry.outbox.counts()).pending, 0);
      await settled();
      assert.deepEqual(sent(), []);
    });

    it('the Notificaties API down: the write succeeds, notifications follow in order once it is back', async () => {
      await nrc.setMode('refuse');
      const zaak = (await post('/zaken', zaakInput())).body;
      assert.ok(zaak.url);
      await api.request(zaak.url, { method: 'PATCH', json: { omschrijving: 'tijdens storing' } });
      assert.equal((await api.registry.outbox.counts()).pending, 2);
      await nrc.setMode('error');
      await eventually(() => assert.ok(nrc.requests.length > 0, 'the Notificaties API was called'));
      await nrc.setMode('ok');
      await eventually(() => assert.deepEqual(sent().map((n) => n.actie), ['create', 'partial_update']));
    });

    it('without the kanaal (registerKanaal off) deliveries fail at once; an operator adds it and retries', async () => {
      const other = await startNotificatiesApi();
      const isolated = await startRegistry(await backend.open(), { plugins: [notifications({ url: other.url, registerKanaal: false })], outbox: FAST_OUTBOX });
      try {
        await isolated.request('/zaken', { method: 'POST', json: zaakInput() });
        const [failed] = await eventually(async () => {
          const list = await isolated.registry.outbox.list({ status: 'failed' });
          assert.equal(list.length, 1);
          return list;
        });
        assert.equal(failed.attempts, 1, 'a 400 is not retried');
        assert.match(failed.lastError!, /400/);
        assert.equal(other.kanalen.length, 0);
        other.kanalen.push({ url: `${other.url}/kanaal/1`, naam: 'zaken', documentatieLink: '', filters: [] });
        assert.equal(await isolated.registry.outbox.retry({ ids: [failed.id] }), 1);
        await eventually(() => assert.equal(other.notificaties.length, 1));
      } finally {
        await isolated.close();
        await other.close();
      }
    });
  });
}
