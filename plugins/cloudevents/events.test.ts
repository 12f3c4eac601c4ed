import assert from 'node:assert/strict';
import { handelingen, type Plugin } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { eventually } from '../../test/helpers/eventually.js';
import { parts, registreren } from '../../test/helpers/handelingen.js';
import { RSIN, TYPES, ZAAKTYPE, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { cloudevents } from './index.js';
import { CATALOGUS, catalogWithCatalogus, startTestSink, type TestSink } from './test-sink.js';

const FAST_OUTBOX = { backoffBaseMs: 20, backoffMaxMs: 100, timeoutMs: 2000, pollIntervalMs: 50, maxAttempts: 4, leaseMs: 6000 };
const SOURCE = 'urn:nld:oin:00000001823288444000:systeem:zaakregister';

/** Fails a write that carries `X-Fail-After-Write`, after the storage write: its transaction rolls back. */
const failAfterWrite: Plugin = {
  name: 'fail-after-write',
  afterWrite(ctx) {
    if (ctx.req.get('x-fail-after-write')) throw new Error('afgebroken na het schrijven');
  },
};

/** A status write that also adds a resultaat and a zaakobject in its transaction (through `services.zaken`). */
const moreInOneTransaction: Plugin = {
  name: 'more-in-one-transaction',
  afterWrite: {
    operations: ['status_create'],
    async handler(ctx) {
      if (!ctx.req.get('x-more')) return;
      const scope = { tx: ctx.tx!, baseUrl: ctx.baseUrl };
      const zaak = String(ctx.result!.zaak);
      await ctx.registry.zaken.createRecord(scope, 'resultaat', { zaak, resultaattype: TYPES.resultaattype });
      await ctx.registry.zaken.createRecord(scope, 'zaakobject', { zaak, objectType: 'pand', object: 'http://bag.test/panden/1' });
    },
  },
};

for (const backend of BACKENDS) {
  describe(`cloudevents: the events of the writes on ${backend.name}`, () => {
    let api: TestServer;
    let sink: TestSink;
    const post = (path: string, json: unknown, headers: Record<string, string> = {}) => api.request(path, { method: 'POST', json, headers });
    const settled = () => eventually(async () => assert.equal((await api.registry.outbox.counts()).pending, 0));
    const types = () => sink.events().map((event) => `${event.type.replace('nl.overheid.zaken.', '')} ${event.subject}`);
    const newZaak = async (overrides: Record<string, unknown> = {}) => {
      const created = await post('/zaken', zaakInput(overrides));
      assert.equal(created.status, 201, created.text);
      return created.body as { url: string; uuid: string };
    };
    const status = (zaak: string, headers: Record<string, string> = {}) => post('/statussen', { zaak, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' }, headers);

    before(async () => {
      sink = await startTestSink();
      api = await startRegistry(await backend.open(), {
        catalog: catalogWithCatalogus(),
        plugins: [cloudevents({ source: SOURCE, laatstGeopend: true, sinks: [{ id: 'portaal', url: sink.url }] }), handelingen(), failAfterWrite, moreInOneTransaction],
        outbox: FAST_OUTBOX,
      });
    });
    after(async () => {
      await api?.close();
      await sink?.close();
    });
    beforeEach(async () => {
      await settled();
      sink.received.length = 0;
    });

    it('a write that rolls back enqueues and sends nothing', async () => {
      const zaak = await newZaak();
      const failed = await status(zaak.url, { 'x-fail-after-write': '1' });
      assert.equal(failed.status, 500);
      assert.equal((await api.registry.outbox.counts()).pending, 0);
      await settled();
      assert.deepEqual(sink.received, []);
    });

    it('POST /zaken gives none; a status, a resultaat and a zaakobject in one transaction give one zaak-gemuteerd', async () => {
      const zaak = await newZaak();
      assert.equal((await api.registry.outbox.counts()).pending, 0, 'a new zaak is complete at its first status');
      assert.equal((await status(zaak.url, { 'x-more': '1' })).status, 201);
      await settled();
      assert.deepEqual(types(), [`zaak-gemuteerd ${zaak.uuid}`]);
      const [event] = sink.events();
      assert.deepEqual(event.data, { bronorganisatie: RSIN, zaaktype: ZAAKTYPE, 'zaaktype.catalogus': CATALOGUS, vertrouwelijkheidaanduiding: 'openbaar' });
      assert.equal(event.dataref, zaak.url);
      assert.equal(event.source, SOURCE);
    });

    it('zaak PATCH and PUT give zaak-gemuteerd, one that changes nothing gives none; laatstGemuteerd follows', async () => {
      const zaak = (await newZaak()) as { url: string; uuid: string; identificatie?: string };
      assert.equal((await api.request(zaak.url, { method: 'PATCH', json: { omschrijving: 'gewijzigd' } })).status, 200);
      assert.equal((await api.request(zaak.url, { method: 'PATCH', json: { omschrijving: 'gewijzigd' } })).status, 200);
      const put = await api.request(zaak.url, { method: 'PUT', json: zaakInput({ identificatie: zaak.identificatie, omschrijving: 'vervangen' }) });
      assert.equal(put.status, 200, put.text);
      await settled();
      assert.deepEqual(types(), [`zaak-gemuteerd ${zaak.uuid}`, `zaak-gemuteerd ${zaak.uuid}`]);
      const shown = (await api.request(zaak.url)).body;
      assert.ok(!Number.isNaN(Date.parse(shown.laatstGemuteerd)), shown.laatstGemuteerd);
      assert.equal(shown.laatstGeopend, null);
    });

    it('a PATCH of only laatstGeopend gives zaak-geopend and no zaak-gemuteerd, and stores it', async () => {
      const zaak = await newZaak();
      const patched = await api.request(zaak.url, { method: 'PATCH', json: { laatstGeopend: '2024-03-02T09:30:00Z' } });
      assert.equal(patched.status, 200, patched.text);
      await settled();
      assert.deepEqual(types(), [`zaak-geopend ${zaak.uuid}`]);
      const shown = (await api.request(zaak.url)).body;
      assert.equal(shown.laatstGeopend, '2024-03-02T09:30:00.000Z');
      assert.equal(shown.laatstGemuteerd, null, 'opening is no mutation');
      const bad = await api.request(zaak.url, { method: 'PATCH', json: { laatstGeopend: 'gisteren' } });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.invalidParams[0].name, 'laatstGeopend');
    });

    it('a deleted zaak with a deelzaak and records gives zaak-verwijderd for each, and no zaak-gemuteerd', async () => {
      const zaak = await newZaak();
      const deelzaak = await newZaak({ hoofdzaak: zaak.url });
      await status(zaak.url);
      await status(deelzaak.url);
      await post('/resultaten', { zaak: deelzaak.url, resultaattype: TYPES.resultaattype });
      await settled();
      sink.received.length = 0;
      assert.equal((await api.request(zaak.url, { method: 'DELETE' })).status, 204);
      await settled();
      assert.deepEqual(types().sort(), [`zaak-verwijderd ${deelzaak.uuid}`, `zaak-verwijderd ${zaak.uuid}`].sort());
    });

    it('records outside Open Zaak\'s list (rol) give none; resultaat and zaakinformatieobject changes do', async () => {
      const zaak = await newZaak();
      const rol = await post('/rollen', { zaak: zaak.url, betrokkeneType: 'natuurlijk_persoon', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'behandelt', betrokkeneIdentificatie: { inpBsn: '111222333' } });
      assert.equal(rol.status, 201, rol.text);
      await settled();
      assert.deepEqual(types(), []);
      const resultaat = (await post('/resultaten', { zaak: zaak.url, resultaattype: TYPES.resultaattype })).body;
      await api.request(resultaat.url, { method: 'PATCH', json: { toelichting: 'anders' } });
      await post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: 'http://documenten.test/api/v1/enkelvoudiginformatieobjecten/1' });
      await settled();
      assert.deepEqual(types(), [`zaak-gemuteerd ${zaak.uuid}`, `zaak-gemuteerd ${zaak.uuid}`, `zaak-gemuteerd ${zaak.uuid}`]);
      assert.equal(new Set(sink.events().map((e) => e.id)).size, 3, 'one event per transaction, each its own id');
    });

    it('a handeling gives its own event and one zaak-gemuteerd (handelingen plugin on)', async () => {
      const registered = await post('/zaak_registreren', registreren());
      assert.equal(registered.status, 201, registered.text);
      const { zaak } = registered.body;
      await settled();
      assert.deepEqual(types(), [`zaak-geregistreerd ${zaak.uuid}`, `zaak-gemuteerd ${zaak.uuid}`]);
      assert.deepEqual(sink.events()[0].data, { bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, zaaktype: ZAAKTYPE, 'zaaktype.catalogus': CATALOGUS, vertrouwelijkheidaanduiding: 'openbaar' });
      for (const [path, body, type] of [
        ['zaak_opschorten', { zaak: { opschorting: { indicatie: true, reden: 'Wacht' } }, status: parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z') }, 'zaak-opgeschort'],
        ['zaak_verlengen', { zaak: { verlenging: { reden: 'Drukte', duur: 'P14D' } }, status: parts.status(TYPES.statustypeStart, '2024-03-03T10:00:00Z') }, 'zaak-verlengd'],
        ['zaak_bijwerken', { zaak: { omschrijving: 'bijgewerkt' }, status: parts.status(TYPES.statustypeStart, '2024-03-04T10:00:00Z') }, 'zaak-bijgewerkt'],
        ['zaak_afsluiten', { zaak: {}, resultaat: parts.resultaat(), status: parts.eindstatus() }, 'zaak-afgesloten'],
      ] as const) {
        sink.received.length = 0;
        const response = await post(`/${path}/${zaak.uuid}`, body);
        assert.equal(response.status, 200, `${path}: ${response.text}`);
        await settled();
        assert.deepEqual(types(), [`${type} ${zaak.uuid}`, `zaak-gemuteerd ${zaak.uuid}`], path);
      }
    });
  });
}
