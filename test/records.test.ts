import assert from 'node:assert/strict';
import { BACKENDS } from './helpers/backends.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

const DOCUMENT = 'http://documenten.test/api/v1/enkelvoudiginformatieobjecten/71111111-1111-4111-8111-111111111111';
const DOCUMENT_2 = 'http://documenten.test/api/v1/enkelvoudiginformatieobjecten/72222222-2222-4222-8222-222222222222';
const params = (body: any) => body.invalidParams.map((p: any) => [p.name, p.code]);

for (const backend of BACKENDS) {
  describe(`Zaak records on ${backend.name}`, () => {
    let api: TestServer;
    let zaak: any;
    const post = (path: string, json: unknown, headers: Record<string, string> = {}) => api.request(path, { method: 'POST', json, headers });
    const patch = (url: string, json: unknown) => api.request(url, { method: 'PATCH', json });
    const status = (overrides: Record<string, unknown> = {}) =>
      post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z', ...overrides });
    const rol = (overrides: Record<string, unknown> = {}) =>
      post('/rollen', {
        zaak: zaak.url,
        betrokkeneType: 'natuurlijk_persoon',
        roltype: TYPES.roltypeBehandelaar,
        roltoelichting: 'behandelt',
        betrokkeneIdentificatie: { inpBsn: '111222333', geslachtsnaam: 'Jansen' },
        ...overrides,
      });

    before(async () => {
      api = await startRegistry(await backend.open());
    });
    after(async () => api?.close());
    beforeEach(async () => {
      await api.registry.services.storage.knex('zaak').delete();
      zaak = (await post('/zaken', zaakInput())).body;
    });

    describe('statussen', () => {
      it('creates statussen, marks the latest one and makes it the zaak status', async () => {
        const first = await status();
        assert.equal(first.status, 201);
        assert.equal(first.headers.get('location'), first.body.url);
        assert.equal(first.body.indicatieLaatstGezetteStatus, true);
        assert.equal(first.body.zaak, zaak.url);
        const second = await status({ statustype: TYPES.statustypeEind, datumStatusGezet: '2024-03-02T10:00:00Z' });
        assert.equal(second.status, 201);
        assert.equal((await api.request(first.body.url)).body.indicatieLaatstGezetteStatus, false);
        assert.equal((await api.request(zaak.url)).body.status, second.body.url);

        const latest = await api.request(`/statussen?zaak=${encodeURIComponent(zaak.url)}&indicatieLaatstGezetteStatus=true`);
        assert.deepEqual(latest.body.results.map((s: any) => s.url), [second.body.url]);
        const earlier = await api.request(`/statussen?indicatieLaatstGezetteStatus=false`);
        assert.deepEqual(earlier.body.results.map((s: any) => s.url), [first.body.url]);
        const byType = await api.request(`/statussen?statustype=${encodeURIComponent(TYPES.statustypeEind)}`);
        assert.equal(byType.body.count, 1);
      });

      it('has no PUT, PATCH or DELETE (405 with Allow)', async () => {
        const created = await status();
        for (const method of ['PUT', 'PATCH', 'DELETE']) {
          const response = await api.request(created.body.url, { method, json: {} });
          assert.equal(response.status, 405, method);
          assert.equal(response.headers.get('allow'), 'GET, HEAD, OPTIONS');
        }
      });

      it('validates the body and the zaak reference', async () => {
        assert.deepEqual(params((await post('/statussen', { zaak: zaak.url })).body).sort(), [['datumStatusGezet', 'required'], ['statustype', 'required']]);
        assert.deepEqual(params((await status({ zaak: 'http://elders.test/zaken/1' })).body), [['zaak', 'no_match']]);
        const gone = zaak.url.replace(/[0-9a-f-]{36}$/, '00000000-0000-4000-8000-000000000000');
        assert.deepEqual(params((await status({ zaak: gone })).body), [['zaak', 'does_not_exist']]);
      });

      it('links gezetdoor to a rol of the zaak, listed in the rol statussen', async () => {
        const behandelaar = (await rol()).body;
        const created = await status({ gezetdoor: behandelaar.url });
        assert.equal(created.status, 201);
        assert.equal(created.body.gezetdoor, behandelaar.url);
        assert.deepEqual((await api.request(behandelaar.url)).body.statussen, [created.body.url]);
        assert.deepEqual(params((await status({ gezetdoor: 'http://elders.test/rollen/x' })).body), [['gezetdoor', 'no_match']]);
      });
    });

    describe('resultaten', () => {
      it('creates one resultaat per zaak, updates and deletes it', async () => {
        const created = await post('/resultaten', { zaak: zaak.url, resultaattype: TYPES.resultaattype, toelichting: 'ok' });
        assert.equal(created.status, 201);
        assert.equal((await api.request(zaak.url)).body.resultaat, created.body.url);
        const second = await post('/resultaten', { zaak: zaak.url, resultaattype: TYPES.resultaattype });
        assert.equal(second.status, 400);
        assert.deepEqual(params(second.body), [['zaak', 'unique']]);
        const patched = await patch(created.body.url, { toelichting: 'anders' });
        assert.equal(patched.status, 200);
        assert.equal(patched.body.toelichting, 'anders');
        assert.equal(patched.body.resultaattype, TYPES.resultaattype);
        // null on a field the resource requires is refused in a PATCH too; on an optional one it is not sent.
        assert.deepEqual(params((await patch(created.body.url, { resultaattype: null })).body), [['resultaattype', 'null']]);
        assert.equal((await patch(created.body.url, { toelichting: null })).body.toelichting, 'anders');
        assert.equal((await api.request(created.body.url, { method: 'DELETE' })).status, 204);
        assert.equal((await api.request(zaak.url)).body.resultaat, null);
        assert.equal((await api.request(created.body.url)).status, 404);
      });
    });

    describe('rollen', () => {
      it('derives omschrijving from the roltype and validates betrokkeneIdentificatie by betrokkeneType', async () => {
        const created = await rol();
        assert.equal(created.status, 201);
        assert.equal(created.body.omschrijving, 'Behandelaar');
        assert.equal(created.body.omschrijvingGeneriek, 'behandelaar');
        assert.equal(created.body.betrokkeneIdentificatie.inpBsn, '111222333');
        assert.match(created.body.registratiedatum, /^\d{4}-\d{2}-\d{2}T/);
        assert.deepEqual((await api.request(zaak.url)).body.rollen, [created.body.url]);

        const tooLong = await rol({ betrokkeneIdentificatie: { inpBsn: '1112223334' } });
        assert.deepEqual(params(tooLong.body), [['betrokkeneIdentificatie.inpBsn', 'max_length']]);
        const medewerker = await rol({ betrokkeneType: 'medewerker', betrokkeneIdentificatie: { identificatie: 'm1', achternaam: 'De Vries' } });
        assert.equal(medewerker.status, 201, medewerker.text);
        assert.equal(medewerker.body.betrokkeneIdentificatie.achternaam, 'De Vries');
      });

      it('needs a betrokkene or betrokkeneIdentificatie, and a roltype the catalog knows', async () => {
        assert.deepEqual(params((await rol({ betrokkeneIdentificatie: undefined })).body), [['nonFieldErrors', 'invalid-betrokkene']]);
        const unknown = await rol({ roltype: 'http://catalogus.test/api/v1/roltypen/99999999-9999-4999-8999-999999999999' });
        assert.deepEqual(params(unknown.body), [['roltype', 'bad-url']]);
      });

      it('allows one initiator and one zaakcoordinator per zaak (max-occurences)', async () => {
        assert.equal((await rol({ roltype: TYPES.roltypeInitiator })).status, 201);
        assert.deepEqual(params((await rol({ roltype: TYPES.roltypeInitiator })).body), [['roltype', 'max-occurences']]);
        assert.equal((await rol({ roltype: TYPES.roltypeCoordinator })).status, 201);
        assert.deepEqual(params((await rol({ roltype: TYPES.roltypeCoordinator })).body), [['roltype', 'max-occurences']]);
        assert.equal((await rol()).status, 201);
        assert.equal((await rol()).status, 201, 'other roles may occur more than once');
      });

      it('filters on betrokkeneIdentificatie, omschrijvingGeneriek and betrokkeneType', async () => {
        await rol();
        await rol({ roltype: TYPES.roltypeInitiator, betrokkeneIdentificatie: { inpBsn: '999888777' } });
        const byBsn = await api.request('/rollen?betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=999888777');
        assert.deepEqual(byBsn.body.results.map((r: any) => r.omschrijvingGeneriek), ['initiator']);
        assert.equal((await api.request('/rollen?omschrijvingGeneriek=behandelaar')).body.count, 1);
        assert.equal((await api.request('/rollen?betrokkeneType=medewerker')).body.count, 0);
        assert.equal((await api.request('/rollen?betrokkeneType=bestaat_niet')).status, 400);
      });
    });

    describe('zaakobjecten', () => {
      const zaakobject = (overrides: Record<string, unknown> = {}) =>
        post('/zaakobjecten', { zaak: zaak.url, objectType: 'adres', objectIdentificatie: { identificatie: 'A1', wplWoonplaatsNaam: 'Utrecht', gorOpenbareRuimteNaam: 'Plein', huisnummer: 1 }, ...overrides });

      it('stores objectIdentificatie by objectType, filters and updates', async () => {
        const created = await zaakobject();
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.objectIdentificatie.wplWoonplaatsNaam, 'Utrecht');
        assert.deepEqual((await api.request(zaak.url)).body.zaakobjecten, [created.body.url]);
        assert.equal((await api.request('/zaakobjecten?objectType=adres')).body.count, 1);
        assert.equal((await api.request('/zaakobjecten?objectType=pand')).body.count, 0);
        const patched = await patch(created.body.url, { relatieomschrijving: 'locatie' });
        assert.equal(patched.body.relatieomschrijving, 'locatie');
        assert.equal(patched.body.objectIdentificatie.huisnummer, 1);
      });

      it('enforces the overige rules and needs an object or objectIdentificatie', async () => {
        assert.deepEqual(params((await zaakobject({ objectType: 'overige', objectIdentificatie: { overigeData: { a: 1 } } })).body), [
          ['nonFieldErrors', 'missing-object-type-overige'],
        ]);
        assert.equal((await zaakobject({ objectType: 'overige', objectTypeOverige: 'boom', objectIdentificatie: { overigeData: { a: 1 } } })).status, 201);
        assert.deepEqual(params((await zaakobject({ objectTypeOverige: 'boom' })).body), [['nonFieldErrors', 'invalid-object-type-overige-usage']]);
        assert.deepEqual(params((await zaakobject({ objectIdentificatie: undefined })).body), [['nonFieldErrors', 'invalid-zaakobject']]);
        assert.deepEqual(params((await zaakobject({ objectType: 'overige', objectTypeOverige: 'boom', objectIdentificatie: {} })).body), [
          ['objectIdentificatie.overigeData', 'required'],
        ]);
      });
    });

    describe('zaakinformatieobjecten', () => {
      it('relates a document once, sets aardRelatie and registratiedatum, lists as a bare array', async () => {
        const created = await post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: DOCUMENT, titel: 'Brief' });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.aardRelatieWeergave, 'Hoort bij, omgekeerd: kent');
        assert.match(created.body.registratiedatum, /^\d{4}-\d{2}-\d{2}T/);
        assert.equal(created.body.status, null);
        const duplicate = await post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: DOCUMENT });
        assert.deepEqual(params(duplicate.body), [['nonFieldErrors', 'unique']]);
        await post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: DOCUMENT_2 });
        const list = await api.request(`/zaakinformatieobjecten?informatieobject=${encodeURIComponent(DOCUMENT)}`);
        assert.ok(Array.isArray(list.body));
        assert.deepEqual(list.body.map((z: any) => z.url), [created.body.url]);
        assert.equal((await api.request(zaak.url)).body.zaakinformatieobjecten.length, 2);
      });

      it('links a status of the zaak, listed in the status zaakinformatieobjecten', async () => {
        const s = (await status()).body;
        const created = await post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: DOCUMENT, status: s.url });
        assert.equal(created.body.status, s.url);
        assert.deepEqual((await api.request(s.url)).body.zaakinformatieobjecten, [created.body.url]);
      });
    });

    describe('zaakeigenschappen (nested)', () => {
      it('creates with naam from the eigenschap, lists under its zaak and refuses another zaak', async () => {
        const path = `/zaken/${zaak.uuid}/zaakeigenschappen`;
        const created = await post(path, { zaak: zaak.url, eigenschap: TYPES.eigenschap, waarde: 'AB-12-CD' });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.naam, 'kenteken');
        assert.equal(created.body.url, `${zaak.url}/zaakeigenschappen/${created.body.uuid}`);
        assert.deepEqual((await api.request(path)).body.map((e: any) => e.waarde), ['AB-12-CD']);
        assert.deepEqual((await api.request(zaak.url)).body.eigenschappen, [created.body.url]);
        const other = (await post('/zaken', zaakInput())).body;
        assert.deepEqual(params((await post(path, { zaak: other.url, eigenschap: TYPES.eigenschap, waarde: 'x' })).body), [['zaak', 'invalid']]);
        assert.equal((await api.request(`/zaken/${other.uuid}/zaakeigenschappen/${created.body.uuid}`)).status, 404);
        assert.equal((await api.request(`/zaken/00000000-0000-4000-8000-000000000000/zaakeigenschappen`)).status, 404);
        const updated = await api.request(created.body.url, { method: 'PUT', json: { zaak: zaak.url, eigenschap: TYPES.eigenschap, waarde: 'XY-99-ZZ' } });
        assert.equal(updated.body.waarde, 'XY-99-ZZ');
      });
    });

    describe('klantcontacten, zaakcontactmomenten, zaakverzoeken, besluiten', () => {
      it('generates a klantcontact identificatie and pages the list', async () => {
        const created = await post('/klantcontacten', { zaak: zaak.url, datumtijd: '2024-03-01T09:00:00Z', kanaal: 'telefoon' });
        assert.equal(created.status, 201, created.text);
        assert.match(created.body.identificatie, /^KC-\d{11}$/);
        assert.equal(created.body.datumtijd, '2024-03-01T09:00:00.000Z');
        const list = await api.request('/klantcontacten');
        assert.equal(list.body.count, 1);
      });

      for (const [path, field, url] of [
        ['/zaakcontactmomenten', 'contactmoment', 'http://contactmomenten.test/api/v1/contactmomenten/81111111-1111-4111-8111-111111111111'],
        ['/zaakverzoeken', 'verzoek', 'http://verzoeken.test/api/v1/verzoeken/91111111-1111-4111-8111-111111111111'],
      ]) {
        it(`links, filters and unlinks ${path}`, async () => {
          const created = await post(path, { zaak: zaak.url, [field]: url });
          assert.equal(created.status, 201, created.text);
          assert.deepEqual((await api.request(`${path}?${field}=${encodeURIComponent(url)}`)).body.map((l: any) => l.url), [created.body.url]);
          assert.deepEqual((await api.request(`${path}?zaak=${encodeURIComponent(zaak.url)}`)).body.length, 1);
          assert.equal((await api.request(created.body.url, { method: 'PUT', json: {} })).status, 405);
          assert.equal((await api.request(created.body.url, { method: 'DELETE' })).status, 204);
          assert.deepEqual((await api.request(path)).body, []);
        });
      }

      it('keeps besluiten under their zaak', async () => {
        const path = `/zaken/${zaak.uuid}/besluiten`;
        const besluit = 'http://besluiten.test/api/v1/besluiten/a1111111-1111-4111-8111-111111111111';
        const created = await post(path, { besluit });
        assert.equal(created.status, 201, created.text);
        assert.deepEqual(Object.keys(created.body), ['url', 'uuid', 'besluit']);
        assert.deepEqual((await api.request(path)).body, [created.body]);
        assert.equal((await api.request(created.body.url, { method: 'DELETE' })).status, 204);
      });
    });

    describe('audit trail', () => {
      it('records every change to the zaak and its records, with who, why and what', async () => {
        const toelichting = { 'x-audit-toelichting': 'Op verzoek van de burger' };
        await patch(zaak.url, { omschrijving: 'Nieuw' });
        const s = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' }, toelichting);
        const r = (await rol()).body;
        await api.request(r.url, { method: 'DELETE' });
        await api.request('/zaken', { method: 'GET' });

        const trail = await api.request(`/zaken/${zaak.uuid}/audittrail`);
        assert.equal(trail.status, 200);
        assert.deepEqual(
          trail.body.map((a: any) => [a.resource, a.actie, a.resultaat]),
          [
            ['zaak', 'create', 201],
            ['zaak', 'partial_update', 200],
            ['status', 'create', 201],
            ['rol', 'create', 201],
            ['rol', 'destroy', 204],
          ],
        );
        const [created, updated, statusEntry, , destroyed] = trail.body;
        assert.equal(created.bron, 'zrc', 'BronEnum of the contract');
        assert.equal(created.hoofdObject, zaak.url);
        assert.equal(created.wijzigingen.oud, null);
        assert.equal(created.wijzigingen.nieuw.url, zaak.url);
        assert.equal(created.applicatieId, 'development');
        assert.equal(updated.wijzigingen.oud.omschrijving, '');
        assert.equal(updated.wijzigingen.nieuw.omschrijving, 'Nieuw');
        assert.equal(updated.actieWeergave, 'Object deels bijgewerkt');
        assert.equal(statusEntry.resourceUrl, s.body.url);
        assert.equal(statusEntry.toelichting, 'Op verzoek van de burger');
        assert.equal(destroyed.wijzigingen.nieuw, null);
        assert.equal(destroyed.wijzigingen.oud.url, r.url);

        const one = await api.request(`/zaken/${zaak.uuid}/audittrail/${statusEntry.uuid}`);
        assert.deepEqual(one.body, statusEntry);
      });

      it('writes no audit row for a change that is refused', async () => {
        await post('/resultaten', { zaak: zaak.url, resultaattype: TYPES.resultaattype });
        assert.equal((await post('/resultaten', { zaak: zaak.url, resultaattype: TYPES.resultaattype })).status, 400);
        const trail = (await api.request(`/zaken/${zaak.uuid}/audittrail`)).body;
        assert.deepEqual(trail.map((a: any) => a.resource), ['zaak', 'resultaat']);
      });
    });

    describe('input that cannot be stored', () => {
      it('answers impossible dates and times with 400, not 500', async () => {
        assert.deepEqual(params((await status({ datumStatusGezet: '2024-13-45T10:00:00Z' })).body), [['datumStatusGezet', 'invalid']]);
        assert.deepEqual(params((await post('/klantcontacten', { zaak: zaak.url, datumtijd: '2024-02-30 25:61' })).body), [['datumtijd', 'invalid']]);
        assert.equal((await status({ datumStatusGezet: '2024-02-29T23:59:59+01:00' })).status, 201);
      });

      it('answers a malformed uuid anywhere in the path with 404, not 500', async () => {
        for (const path of ['/zaken/geen-uuid/zaakeigenschappen', '/zaken/geen-uuid/besluiten', '/zaken/geen-uuid/audittrail', `/zaken/${zaak.uuid}/audittrail/geen-uuid`]) {
          assert.equal((await api.request(path)).status, 404, path);
        }
      });

      it('takes back what it serves: a zaakobject GET then PUT unchanged', async () => {
        const created = (await post('/zaakobjecten', { zaak: zaak.url, objectType: 'pand', object: 'http://bag.test/panden/1' })).body;
        const fetched = (await api.request(created.url)).body;
        const put = await api.request(created.url, { method: 'PUT', json: fetched });
        assert.equal(put.status, 200, put.text);
        assert.deepEqual(put.body, fetched);
      });
    });

    it('answers HEAD on details with the headers of GET and no body', async () => {
      const created = (await status()).body;
      const get = await api.request(created.url);
      const head = await api.request(created.url, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.equal(head.headers.get('content-length'), get.headers.get('content-length'));
      assert.equal(head.headers.get('api-version'), get.headers.get('api-version'));
    });

    it('destroys a zaak with all its records (zrc-023)', async () => {
      await status();
      await rol();
      await post('/resultaten', { zaak: zaak.url, resultaattype: TYPES.resultaattype });
      await post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: DOCUMENT });
      await post(`/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: TYPES.eigenschap, waarde: 'x' });
      await post('/klantcontacten', { zaak: zaak.url, datumtijd: '2024-03-01T09:00:00Z' });
      assert.equal((await api.request(zaak.url, { method: 'DELETE' })).status, 204);
      const knex = api.registry.services.storage.knex;
      for (const table of ['status', 'rol', 'resultaat', 'zaakinformatieobject', 'zaakeigenschap', 'klantcontact', 'audittrail']) {
        const [{ count }] = await knex(table).count({ count: '*' });
        assert.equal(Number(count), 0, table);
      }
    });

    it('loads a page of zaken with all derived fields in a fixed number of queries (no N+1)', async () => {
      const knex = api.registry.services.storage.knex;
      const queriesFor = async (pageSize: number) => {
        let queries = 0;
        const count = () => void queries++;
        knex.on('query', count);
        const response = await api.request(`/zaken?pageSize=${pageSize}`);
        knex.off('query', count);
        assert.equal(response.body.results.length, pageSize);
        return queries;
      };
      for (let i = 0; i < 12; i++) {
        const other = (await post('/zaken', zaakInput())).body;
        await post('/statussen', { zaak: other.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
        await post('/rollen', { zaak: other.url, betrokkeneType: 'medewerker', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'x', betrokkene: 'http://x.test/m/1' });
      }
      assert.equal(await queriesFor(2), await queriesFor(12));
    });
  });
}
