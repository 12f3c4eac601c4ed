import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { staticCatalog } from '../../src/index.js';
import { testCatalogData } from '../../src/testing/index.js';
import { APPS_SECRET, testApps } from '../../test/helpers/apps.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { startGuardedApi, type GuardedApiServer } from '../../test/helpers/guarded-apis.js';
import { ZAAKTYPE, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { expand } from './index.js';

/** Who the stand-in APIs know; `beperkt` may read nothing there. */
const CLIENTS = { alles: APPS_SECRET, beperkt: APPS_SECRET };
const clientOf = (authorization: string | undefined) => String(decodeJwt(authorization!.replace(/^Bearer /, '')).client_id);

for (const backend of BACKENDS) {
  describe(`fields in _zoek across APIs on ${backend.name}`, () => {
    let catalogi: GuardedApiServer;
    let documenten: GuardedApiServer;
    let api: TestServer;
    let zaak: any;
    let zaakinformatieobject: any;
    let catalogus: string;
    let document: string;
    const apps = testApps();
    const search = async (clientId: 'alles' | 'beperkt', fields: unknown) =>
      api.request('/zaken/_zoek', { method: 'POST', json: { uuid__in: [zaak.uuid], fields }, headers: await apps.headers(clientId) });

    before(async () => {
      catalogi = await startGuardedApi('catalogi', CLIENTS, ['alles']);
      documenten = await startGuardedApi('documenten', CLIENTS, ['alles']);
      catalogus = catalogi.resource({ domein: 'ABCDE', rsin: '517439943', contactpersoonBeheerNaam: 'Beheer' });
      document = documenten.resource({ titel: 'Aanvraag', inhoud: 'https://documenten.example/inhoud', bestandsnaam: 'aanvraag.pdf', bestandsomvang: 1024, taal: 'nld' });
      const data = testCatalogData();
      const zaaktypen = data.zaaktypen!.map((type) => (type.url === ZAAKTYPE ? { ...type, omschrijving: 'Vergunning', catalogus } : type));
      api = await startRegistry(await backend.open(), {
        plugins: [expand()],
        authorization: apps.authorization,
        catalog: staticCatalog({ ...data, zaaktypen }),
        remote: { allowedHosts: [catalogi.host, documenten.host] },
      });
      const headers = await apps.headers('alles');
      zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput(), headers })).body;
      zaakinformatieobject = (await api.request('/zaakinformatieobjecten', { method: 'POST', json: { zaak: zaak.url, informatieobject: document }, headers })).body;
      assert.equal(zaakinformatieobject.informatieobject, document);
    });
    after(async () => {
      await api?.close();
      await Promise.all([catalogi?.close(), documenten?.close()]);
    });

    it('answers the contract’s example parts: the zaaktype’s catalogus and the documents, trimmed, read with the client’s own token', async () => {
      catalogi.requests.length = documenten.requests.length = 0;
      const { authorization } = await apps.headers('alles');
      const response = await search('alles', [
        'url',
        'identificatie',
        { zaaktype: ['identificatie', 'omschrijving', { catalogus: ['domein'] }], zaakinformatieobjecten: [{ informatieobject: ['inhoud', 'bestandsnaam', 'bestandsomvang'] }] },
      ]);
      assert.equal(response.status, 200, response.text);
      assert.equal(
        JSON.stringify(response.body.results[0]),
        JSON.stringify({
          url: zaak.url,
          identificatie: zaak.identificatie,
          zaaktype: ZAAKTYPE,
          zaakinformatieobjecten: [zaakinformatieobject.url],
          _expand: {
            // The test zaaktype has no identificatie: a name a remote resource lacks is left out.
            zaaktype: { omschrijving: 'Vergunning', catalogus, _expand: { catalogus: { domein: 'ABCDE' } } },
            zaakinformatieobjecten: [{ informatieobject: document, _expand: { informatieobject: { inhoud: 'https://documenten.example/inhoud', bestandsnaam: 'aanvraag.pdf', bestandsomvang: 1024 } } }],
          },
        }),
      );
      const sent = [...catalogi.requests, ...documenten.requests];
      assert.equal(sent.length, 2, 'the catalogus and the document, each once');
      assert.ok(sent.every((request) => request.authorization === authorization), 'the client’s own header, unchanged');
    });

    it('leaves out what the other API refuses the client: {} where it would be', async () => {
      catalogi.requests.length = documenten.requests.length = 0;
      const response = await search('beperkt', [{ zaaktype: [{ catalogus: ['domein'] }], zaakinformatieobjecten: [{ informatieobject: ['titel'] }] }]);
      assert.equal(response.status, 200, response.text);
      const { _expand } = response.body.results[0];
      assert.deepEqual(_expand.zaaktype, { catalogus, _expand: { catalogus: {} } });
      assert.deepEqual(_expand.zaakinformatieobjecten, [{ informatieobject: document, _expand: { informatieobject: {} } }]);
      assert.deepEqual([...catalogi.requests, ...documenten.requests].map((r) => clientOf(r.authorization)), ['beperkt', 'beperkt']);
    });

    it('answers an object on a remote attribute that links nothing with 404 invalid-expand-field, naming fields', async () => {
      const response = await search('alles', [{ zaaktype: [{ catalogus: [{ domein: ['x'] }] }] }]);
      assert.equal(response.status, 404, response.text);
      assert.equal(response.body.code, 'invalid-expand-field');
      assert.equal(response.body.invalidParams[0].name, 'fields');
      assert.match(response.body.invalidParams[0].reason, /^zaaktype\.catalogus\.domein: /);
    });
  });
}
