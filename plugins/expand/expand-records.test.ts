import assert from 'node:assert/strict';
import { testApps } from '../../test/helpers/apps.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { TYPES, ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { expand } from './index.js';

/** Every read that takes `expand` besides the zaken's, as the 1.8.0 contract lists them. */
const RECORD_READS = [
  'resultaat_list',
  'resultaat_retrieve',
  'rol_list',
  'rol_retrieve',
  'status_list',
  'status_retrieve',
  'zaakinformatieobject_list',
  'zaakinformatieobject_retrieve',
  'zaakobject_list',
  'zaakobject_retrieve',
  'zaakeigenschap_list',
  'zaakeigenschap_retrieve',
  'zaakbesluit_list',
  'zaakbesluit_retrieve',
];

for (const backend of BACKENDS) {
  describe(`expand on the records of a zaak, on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    let zaak: any;
    let rol: any;
    let status: any;
    let resultaat: any;
    let zio: any;
    let zaakobject: any;
    let zaakeigenschap: any;
    let zaakbesluit: any;
    let geheimeStatus: any;
    const as = async (clientId: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), ...(await apps.headers(clientId)) } });
    const get = async (path: string) => {
      const response = await as('alles', path);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      return response.body;
    };
    const post = async (path: string, json: unknown) => {
      const response = await as('alles', path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const withoutExpand = ({ _expand, ...resource }: any) => resource;

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [expand()], authorization: apps.authorization });
      const hoofdzaak = await post('/zaken', zaakInput());
      zaak = await post('/zaken', zaakInput({ hoofdzaak: hoofdzaak.url }));
      rol = await post('/rollen', { zaak: zaak.url, betrokkeneType: 'medewerker', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'x', betrokkeneIdentificatie: { identificatie: 'm1' } });
      status = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z', gezetdoor: rol.url });
      resultaat = await post('/resultaten', { zaak: zaak.url, resultaattype: TYPES.resultaattype });
      zio = await post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: 'http://documenten.test/api/v1/enkelvoudiginformatieobjecten/1', status: status.url });
      zaakobject = await post('/zaakobjecten', { zaak: zaak.url, objectType: 'pand', object: 'http://bag.test/panden/1' });
      zaakeigenschap = await post(`/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: TYPES.eigenschap, waarde: 'AB-12-CD' });
      zaakbesluit = await post(`/zaken/${zaak.uuid}/besluiten`, { besluit: 'http://besluiten.test/api/v1/besluiten/1' });
      const geheim = await post('/zaken', zaakInput({ zaaktype: ZAAKTYPE_GEHEIM }));
      geheimeStatus = await post('/statussen', { zaak: geheim.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
    });
    after(async () => api?.close());

    it('documents expand on every record read of the contract, and as a query parameter and a deprecated body property of _zoek', async () => {
      const document = (await api.request('/openapi.json')).body;
      const operations = new Map<string, any>();
      for (const item of Object.values<any>(document.paths)) for (const operation of Object.values<any>(item)) if (operation?.operationId) operations.set(operation.operationId, operation);
      const takesExpand = (id: string) => (operations.get(id).parameters ?? []).some((p: any) => (p.$ref ? p.$ref.endsWith('/expand') : p.name === 'expand' && p.in === 'query'));
      for (const id of [...RECORD_READS, 'zaak_list', 'zaak_retrieve', 'zaak__zoek']) assert.ok(takesExpand(id), `${id} takes expand`);
      for (const id of ['klantcontact_list', 'zaakverzoek_retrieve', 'status_create']) assert.ok(!takesExpand(id), `${id} takes no expand`);
      const zoek = operations.get('zaak__zoek').requestBody.content['application/json'].schema;
      const body = zoek.$ref ? document.components.schemas[zoek.$ref.split('/').pop()] : zoek;
      const property = body.properties?.expand ?? body.allOf?.map((part: any) => part.properties?.expand).find(Boolean);
      assert.equal(property?.deprecated, true);
    });

    it('expands the lists and details of resultaten, rollen and statussen', async () => {
      const resultaten = await get(`/resultaten?zaak=${encodeURIComponent(zaak.url)}&expand=zaak.hoofdzaak,resultaattype`);
      assert.equal(resultaten.results.length, 1);
      assert.equal(resultaten.results[0]._expand.resultaattype.url, TYPES.resultaattype);
      assert.deepEqual(withoutExpand(resultaten.results[0]._expand.zaak), await get(zaak.url));
      assert.equal(resultaten.results[0]._expand.zaak._expand.hoofdzaak.url, zaak.hoofdzaak);
      assert.equal((await get(`${resultaat.url}?expand=zaak.status.gezetdoor`))._expand.zaak._expand.status._expand.gezetdoor.url, rol.url);

      const rollen = await get(`/rollen?zaak=${encodeURIComponent(zaak.url)}&expand=roltype,statussen.statustype`);
      assert.equal(rollen.results[0]._expand.roltype.url, TYPES.roltypeBehandelaar);
      assert.deepEqual(rollen.results[0]._expand.statussen.map(withoutExpand), [await get(status.url)]);
      assert.equal(rollen.results[0]._expand.statussen[0]._expand.statustype.url, TYPES.statustypeStart);
      assert.equal((await get(`${rol.url}?expand=zaak.zaaktype`))._expand.zaak._expand.zaaktype.url, ZAAKTYPE);

      const statussen = await get(`/statussen?zaak=${encodeURIComponent(zaak.url)}&expand=statustype,gezetdoor,zaakinformatieobjecten`);
      const [first] = statussen.results;
      assert.equal(first._expand.statustype.url, TYPES.statustypeStart);
      assert.deepEqual(first._expand.gezetdoor, await get(rol.url));
      assert.deepEqual(first._expand.zaakinformatieobjecten, [await get(zio.url)]);
      assert.equal((await get(`${status.url}?expand=gezetdoor.roltype`))._expand.gezetdoor._expand.roltype.url, TYPES.roltypeBehandelaar);
    });

    it('expands the lists and details of zaakinformatieobjecten, zaakobjecten, zaakeigenschappen and besluiten of a zaak', async () => {
      const zios = await get(`/zaakinformatieobjecten?zaak=${encodeURIComponent(zaak.url)}&expand=zaak,status.statustype`);
      assert.equal(zios[0]._expand.zaak.url, zaak.url);
      assert.equal(zios[0]._expand.status._expand.statustype.url, TYPES.statustypeStart);
      assert.equal((await get(`${zio.url}?expand=status.gezetdoor`))._expand.status._expand.gezetdoor.url, rol.url);

      const zaakobjecten = await get(`/zaakobjecten?zaak=${encodeURIComponent(zaak.url)}&expand=zaak.resultaat.resultaattype`);
      assert.equal(zaakobjecten.results[0]._expand.zaak._expand.resultaat._expand.resultaattype.url, TYPES.resultaattype);
      assert.deepEqual((await get(`${zaakobject.url}?expand=zaak`))._expand.zaak.url, zaak.url);
      assert.deepEqual((await get(`${zaakobject.url}?expand=zaakobjecttype`))._expand, { zaakobjecttype: {} }, 'no zaakobjecttype: {}');

      const eigenschappen = await get(`/zaken/${zaak.uuid}/zaakeigenschappen?expand=eigenschap,zaak.eigenschappen`);
      assert.equal(eigenschappen[0]._expand.eigenschap.naam, 'kenteken');
      assert.deepEqual(eigenschappen[0]._expand.zaak._expand.eigenschappen, [await get(zaakeigenschap.url)]);
      assert.equal((await get(`${zaakeigenschap.url}?expand=eigenschap`))._expand.eigenschap.url, TYPES.eigenschap);

      // The Besluiten API of this besluit is not an allowed host: the answer cannot be made (zrc-028).
      for (const path of [`/zaken/${zaak.uuid}/besluiten?expand=besluit`, `${zaakbesluit.url}?expand=besluit`]) {
        const response = await as('alles', path);
        assert.equal(response.status, 404, response.text);
        assert.equal(response.body.code, 'expand-unavailable');
      }
      assert.deepEqual(await get(`/zaken/${zaak.uuid}/besluiten`), [zaakbesluit], 'no expand, no _expand');
    });

    it('answers an attribute the record does not have with 404 invalid-expand-field', async () => {
      for (const path of [`/zaken/${zaak.uuid}/besluiten?expand=zaak`, `${status.url}?expand=resultaattype`, `/rollen?expand=gezetdoor`, `${zio.url}?expand=status.onbekend`]) {
        const response = await as('alles', path);
        assert.equal(response.status, 404, `${path}: ${response.text}`);
        assert.equal(response.body.code, 'invalid-expand-field');
        assert.equal(response.body.invalidParams[0].name, 'expand');
      }
    });

    it('shows through a record only what the client may read', async () => {
      const list = await as('beperkt', '/statussen?expand=zaak,gezetdoor');
      assert.equal(list.status, 200, list.text);
      assert.ok(list.body.results.length >= 1);
      assert.ok(!JSON.stringify(list.body).includes(ZAAKTYPE_GEHEIM), 'no status of a geheime zaak, nor its zaak');
      assert.ok(list.body.results.every((s: any) => s._expand.zaak.zaaktype === ZAAKTYPE));
      assert.equal((await as('beperkt', `${geheimeStatus.url}?expand=zaak`)).status, 403);
    });
  });
}
