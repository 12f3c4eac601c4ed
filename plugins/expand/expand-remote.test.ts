import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { staticCatalog } from '../../src/index.js';
import { testCatalogData } from '../../src/testing/index.js';
import { APPS_SECRET, testApps } from '../../test/helpers/apps.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { startGuardedApi, type GuardedApiServer } from '../../test/helpers/guarded-apis.js';
import { TYPES, ZAAKTYPE, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { expand, type ExpandOptions } from './index.js';

const REGISTRY_SECRET = 'the-registrys-own-secret-of-32-bytes-or-more';
const INFORMATIEOBJECTTYPE = new URL('../informatieobjecttypen/71111111-1111-4111-8111-111111111111', ZAAKTYPE).href;
const catalog = () => staticCatalog({ ...testCatalogData(), informatieobjecttypen: [{ url: INFORMATIEOBJECTTYPE, omschrijving: 'Brief', vertrouwelijkheidaanduiding: 'openbaar' }] });
/** Who the stand-in APIs know: both applications and the registry itself; `beperkt` may read nothing there. */
const CLIENTS = { alles: APPS_SECRET, beperkt: APPS_SECRET, zaakregister: REGISTRY_SECRET };
const READERS = ['alles', 'zaakregister'];

const clientOf = (authorization: string | undefined) => String(decodeJwt(authorization!.replace(/^Bearer /, '')).client_id);

for (const backend of BACKENDS) {
  describe(`expand across APIs on ${backend.name}`, () => {
    let documenten: GuardedApiServer;
    let besluiten: GuardedApiServer;
    let elsewhere: GuardedApiServer;
    const apps = testApps();

    const registry = async (options: ExpandOptions = {}) => {
      const credentials = { clientId: 'zaakregister', secret: REGISTRY_SECRET };
      return startRegistry(await backend.open(), {
        plugins: [expand(options)],
        authorization: apps.authorization,
        catalog: catalog(),
        remote: { allowedHosts: [documenten.host, besluiten.host], credentials: { [documenten.host]: credentials, [besluiten.host]: credentials } },
      });
    };
    const client = (api: TestServer) => ({
      async as(clientId: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) {
        return api.request(path, { ...init, headers: { ...(init.headers as object), ...(await apps.headers(clientId)) } });
      },
      async post(path: string, json: unknown) {
        const response = await api.request(path, { method: 'POST', json, headers: await apps.headers('alles') });
        assert.equal(response.status, 201, response.text);
        return response.body;
      },
    });

    before(async () => {
      documenten = await startGuardedApi('documenten', CLIENTS, READERS);
      besluiten = await startGuardedApi('besluiten', CLIENTS, READERS);
      elsewhere = await startGuardedApi('documenten', CLIENTS, READERS);
    });
    after(async () => {
      await Promise.all([documenten?.close(), besluiten?.close(), elsewhere?.close()]);
    });

    describe('with the caller’s own token (the default)', () => {
      let api: TestServer;
      let zaak: any;
      let document: string;
      let besluit: string;
      let zaakbesluit: any;
      let http: ReturnType<typeof client>;

      before(async () => {
        api = await registry();
        http = client(api);
        document = documenten.resource({ titel: 'Aanvraag', informatieobjecttype: INFORMATIEOBJECTTYPE });
        zaak = await http.post('/zaken', zaakInput({ productenOfDiensten: [documenten.resource({ naam: 'Vergunning' }), `${documenten.url}/enkelvoudiginformatieobjecten/00000000-0000-4000-8000-000000000000`] }));
        await http.post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
        await http.post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: document });
        besluit = besluiten.resource({ identificatie: 'BESLUIT-1', zaak: zaak.url, informatieobjecten: [document] });
        zaakbesluit = await http.post(`/zaken/${zaak.uuid}/besluiten`, { besluit });
      });
      after(async () => api?.close());

      it('reads documents and besluiten with the client’s own Authorization header, deeper into them, and back into this registry from storage', async () => {
        documenten.requests.length = besluiten.requests.length = 0;
        const { authorization } = await apps.headers('alles');
        const response = await http.as('alles', `/zaken/${zaak.uuid}?expand=zaakinformatieobjecten.informatieobject.informatieobjecttype`);
        assert.equal(response.status, 200, response.text);
        const [zio] = response.body._expand.zaakinformatieobjecten;
        assert.equal(zio._expand.informatieobject.titel, 'Aanvraag');
        assert.equal(zio._expand.informatieobject._expand.informatieobjecttype.omschrijving, 'Brief', 'a type from the catalog client');

        const besluitenList = await http.as('alles', `/zaken/${zaak.uuid}/besluiten?expand=besluit.zaak.status.statustype,besluit.informatieobjecten`);
        assert.equal(besluitenList.status, 200, besluitenList.text);
        const expanded = besluitenList.body[0]._expand.besluit;
        assert.equal(expanded.identificatie, 'BESLUIT-1');
        // The registry's own host is not an allowed one: this zaak can only have come from storage.
        assert.equal(expanded._expand.zaak.url, zaak.url);
        assert.equal(expanded._expand.zaak._expand.status._expand.statustype.url, TYPES.statustypeStart);
        assert.deepEqual(expanded._expand.informatieobjecten.map((d: any) => d.url), [document]);
        assert.equal((await http.as('alles', `${zaakbesluit.url}?expand=besluit`)).body._expand.besluit.url, besluit);

        const sent = [...documenten.requests, ...besluiten.requests];
        assert.ok(sent.length >= 3);
        assert.ok(sent.every((request) => request.authorization === authorization), 'the client’s own header, unchanged');
      });

      it('leaves out what the other API refuses the client or does not have: a single link is {}, a list omits it', async () => {
        const mine = (await http.as('alles', `/zaken/${zaak.uuid}?expand=productenOfDiensten`)).body._expand;
        assert.deepEqual(mine.productenOfDiensten.map((p: any) => p.naam), ['Vergunning'], 'the one the Documenten API does not have is left out');

        documenten.requests.length = 0;
        const response = await http.as('beperkt', `/zaken/${zaak.uuid}?expand=zaakinformatieobjecten.informatieobject,productenOfDiensten`);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body._expand.zaakinformatieobjecten[0]._expand.informatieobject, {});
        assert.deepEqual(response.body._expand.productenOfDiensten, []);
        assert.ok(documenten.requests.length >= 1 && documenten.requests.every((r) => clientOf(r.authorization) === 'beperkt'));
        const besluit = await http.as('beperkt', `/zaken/${zaak.uuid}/besluiten?expand=besluit.zaak`);
        assert.deepEqual(besluit.body[0]._expand.besluit, {});
      });

      it('answers 502 bad_gateway when the other API fails, and never fetches from a host that is not allowed', async () => {
        await documenten.setMode('error');
        try {
          const response = await http.as('alles', `/zaken/${zaak.uuid}?expand=zaakinformatieobjecten.informatieobject`);
          assert.equal(response.status, 502, response.text);
          assert.equal(response.body.code, 'bad_gateway');
        } finally {
          await documenten.setMode('ok');
        }

        const stray = await http.post('/zaken', zaakInput());
        await http.post('/zaakinformatieobjecten', { zaak: stray.url, informatieobject: elsewhere.resource({ titel: 'Elders' }) });
        const response = await http.as('alles', `/zaken/${stray.uuid}?expand=zaakinformatieobjecten.informatieobject`);
        assert.equal(response.status, 404, response.text);
        assert.equal(response.body.code, 'expand-unavailable');
        assert.match(response.body.detail, new RegExp(elsewhere.host.replace(/\./g, '\\.')));
        assert.equal(elsewhere.requests.length, 0, 'not one request reached it');
      });
    });

    describe('with the registry’s own credentials (remoteCredentials: registry)', () => {
      let api: TestServer;
      let http: ReturnType<typeof client>;
      const documents: Record<string, string> = {};

      before(async () => {
        api = await registry({ remoteCredentials: 'registry', remoteConcurrency: 2, maxRemoteFetches: 4 });
        http = client(api);
        for (const name of ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']) documents[name] = documenten.resource({ titel: name });
        for (const name of ['A', 'A', 'B', 'C']) {
          const zaak = await http.post('/zaken', zaakInput({ startdatum: '2030-01-01' }));
          await http.post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: documents[name] });
        }
        const big = await http.post('/zaken', zaakInput({ startdatum: '2031-01-01' }));
        for (const name of ['D', 'E', 'F', 'G', 'H']) await http.post('/zaakinformatieobjecten', { zaak: big.url, informatieobject: documents[name] });
      });
      after(async () => api?.close());

      it('reads with the registry’s token, so a client sees what the registry may read; each URL once, at most remoteConcurrency at a time', async () => {
        documenten.requests.length = 0;
        documenten.mostInFlight = 0;
        // Each answer held a while, so that requests the registry lets run together do overlap.
        documenten.holdMs = 30;
        try {
          const response = await http.as('beperkt', '/zaken?startdatum=2030-01-01&expand=zaakinformatieobjecten.informatieobject');
          assert.equal(response.status, 200, response.text);
          const titles = response.body.results.flatMap((z: any) => z._expand.zaakinformatieobjecten.map((zio: any) => zio._expand.informatieobject.titel));
          assert.deepEqual(titles.sort(), ['A', 'A', 'B', 'C']);
        } finally {
          documenten.holdMs = 0;
        }
        assert.deepEqual(documenten.requests.map((r) => clientOf(r.authorization)), ['zaakregister', 'zaakregister', 'zaakregister'], 'A, B and C, each once');
        assert.ok(documenten.mostInFlight <= 2, `${documenten.mostInFlight} at once`);
      });

      it('fetches nothing for a request over maxRemoteFetches', async () => {
        documenten.requests.length = 0;
        const response = await http.as('alles', '/zaken?startdatum=2031-01-01&expand=zaakinformatieobjecten.informatieobject');
        assert.equal(response.status, 400, response.text);
        assert.equal(response.body.code, 'expand-limit');
        assert.match(response.body.invalidParams[0].reason, /maxRemoteFetches = 4/);
        assert.equal(documenten.requests.length, 0);
      });
    });
  });
}
