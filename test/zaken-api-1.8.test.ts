import assert from 'node:assert/strict';
import { BACKENDS } from './helpers/backends.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

/** What the Zaken API 1.8.0 contract changed in the records, over HTTP, with 1.5.1 clients still served. */
for (const backend of BACKENDS) {
  describe(`Zaken API 1.8.0 record changes on ${backend.name}`, () => {
    let api: TestServer;
    let zaak: any;
    const post = (path: string, json: unknown) => api.request(path, { method: 'POST', json });
    const rol = (betrokkeneType: string, betrokkeneIdentificatie: Record<string, unknown>) =>
      post('/rollen', { zaak: zaak.url, betrokkeneType, roltype: TYPES.roltypeBehandelaar, roltoelichting: 'behandelt', betrokkeneIdentificatie });
    const zaakobject = (objectType: string, objectIdentificatie: Record<string, unknown>) => post('/zaakobjecten', { zaak: zaak.url, objectType, objectIdentificatie });
    const params = (body: any) => body.invalidParams.map((p: any) => [p.name, p.code]);

    before(async () => {
      api = await startRegistry(await backend.open());
    });
    after(async () => api?.close());
    beforeEach(async () => {
      await api.registry.services.storage.knex('zaak').delete();
      zaak = (await post('/zaken', zaakInput())).body;
    });

    it('stores a medewerker identificatie of 254 characters (a uuid fits), finds the zaak by it, and refuses 255', async () => {
      const identificatie = `${'m'.repeat(217)}-0f8c6c1e-4a53-4f8e-9a39-3c7d2b1e5a10`;
      assert.equal(identificatie.length, 254);
      const created = await rol('medewerker', { identificatie, achternaam: 'Jansen' });
      assert.equal(created.status, 201, created.text);
      assert.equal((await api.request(created.body.url)).body.betrokkeneIdentificatie.identificatie, identificatie);

      const byRol = await api.request(`/zaken?rol__betrokkeneIdentificatie__medewerker__identificatie=${identificatie}`);
      assert.deepEqual(byRol.body.results.map((z: any) => z.url), [zaak.url]);
      const rollen = await api.request(`/rollen?betrokkeneIdentificatie__medewerker__identificatie=${identificatie}`);
      assert.deepEqual(rollen.body.results.map((r: any) => r.url), [created.body.url]);

      const tooLong = await rol('medewerker', { identificatie: `${identificatie}x` });
      assert.equal(tooLong.status, 400);
      assert.deepEqual(params(tooLong.body), [['betrokkeneIdentificatie.identificatie', 'max_length']]);
      assert.equal((await api.request(`/zaken?rol__betrokkeneIdentificatie__medewerker__identificatie=${identificatie}x`)).status, 400);
    });

    it('takes innRechtsvorm europese_cooperatieve_vennootschap, and the misspelled value 1.5.1 clients send', async () => {
      for (const innRechtsvorm of ['europese_cooperatieve_vennootschap', 'europese_cooperatieve_venootschap']) {
        const created = await rol('niet_natuurlijk_persoon', { innNnpId: '123456789', statutaireNaam: 'Coöperatie', innRechtsvorm });
        assert.equal(created.status, 201, created.text);
        assert.equal((await api.request(created.body.url)).body.betrokkeneIdentificatie.innRechtsvorm, innRechtsvorm);
      }
      const unknown = await rol('niet_natuurlijk_persoon', { innNnpId: '123456789', innRechtsvorm: 'europese_venootschap' });
      assert.equal(unknown.status, 400);
    });

    it('identifies the adres of a terrein_gebouwd_object or huishouden by aoaIdentificatie or oaoIdentificatie, not by neither', async () => {
      const adres = { aoaHuisnummer: 12, gorOpenbareRuimteNaam: 'Dorpsstraat', wplWoonplaatsNaam: 'Utrecht' };
      for (const identificatie of [{ aoaIdentificatie: '0344200000123456' }, { oaoIdentificatie: '0344200000123456' }]) {
        const terrein = await zaakobject('terrein_gebouwd_object', { identificatie: 'T1', adresAanduidingGrp: { ...adres, ...identificatie } });
        assert.equal(terrein.status, 201, terrein.text);
        assert.deepEqual((await api.request(terrein.body.url)).body.objectIdentificatie.adresAanduidingGrp, { ...adres, ...identificatie });
        const huishouden = await zaakobject('huishouden', { nummer: 'H1', isGehuisvestIn: { identificatie: 'T1', adresAanduidingGrp: { ...adres, ...identificatie } } });
        assert.equal(huishouden.status, 201, huishouden.text);
      }

      const before = (await api.request('/zaakobjecten')).body.count;
      const terrein = await zaakobject('terrein_gebouwd_object', { identificatie: 'T1', adresAanduidingGrp: adres });
      assert.equal(terrein.status, 400);
      assert.deepEqual(params(terrein.body), [['objectIdentificatie.adresAanduidingGrp.aoaIdentificatie', 'required']]);
      const huishouden = await zaakobject('huishouden', { nummer: 'H1', isGehuisvestIn: { identificatie: 'T1', adresAanduidingGrp: adres } });
      assert.equal(huishouden.status, 400);
      assert.deepEqual(params(huishouden.body), [['objectIdentificatie.isGehuisvestIn.adresAanduidingGrp.aoaIdentificatie', 'required']]);
      assert.equal((await api.request('/zaakobjecten')).body.count, before, 'nothing written');
      // Without an adres there is nothing to identify.
      assert.equal((await zaakobject('terrein_gebouwd_object', { identificatie: 'T2', adresAanduidingGrp: null })).status, 201);
    });

    it('still serves the deprecated /zaakverzoeken', async () => {
      const created = await post('/zaakverzoeken', { zaak: zaak.url, verzoek: 'http://vz.test/verzoeken/1' });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual((await api.request(`/zaakverzoeken?zaak=${encodeURIComponent(zaak.url)}`)).body.map((v: any) => v.url), [created.body.url]);
    });

    it('takes the contract ordering of _zoek as one value, and as a list', async () => {
      const later = (await post('/zaken', zaakInput({ startdatum: '2024-04-01' }))).body;
      for (const ordering of ['-startdatum', ['-startdatum']]) {
        const found = await post('/zaken/_zoek', { ordering });
        assert.equal(found.status, 200, found.text);
        assert.deepEqual(found.body.results.map((z: any) => z.url), [later.url, zaak.url]);
      }
      const wrong = await post('/zaken/_zoek', { ordering: 'kleur' });
      assert.equal(wrong.status, 400);
    });
  });
}
