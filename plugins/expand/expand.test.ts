import assert from 'node:assert/strict';
import { testApps } from '../../test/helpers/apps.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { TYPES, ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { createZaakFamily, type ZaakFamily } from '../../test/helpers/zaak-family.js';
import { expand, parseExpand } from './index.js';

const EVERY_PATH = 'zaaktype,status.statustype,resultaat.resultaattype,rollen.roltype,hoofdzaak,deelzaken,relevanteAndereZaken,eigenschappen,zaakobjecten,zaakinformatieobjecten';
const UNKNOWN_ZAAKTYPE = 'http://catalogus.test/api/v1/zaaktypen/99999999-9999-4999-8999-999999999999';

describe('expand: parsing', () => {
  it('builds one tree from comma-separated dot paths, at any depth', () => {
    const tree = parseExpand(' status.statustype , status,hoofdzaak.deelzaken.status.zaak.hoofdzaak.deelzaken,');
    assert.deepEqual([...tree.keys()], ['status', 'hoofdzaak']);
    assert.deepEqual([...tree.get('status')!.keys()], ['statustype']);
    const sixth = tree.get('hoofdzaak')!.get('deelzaken')!.get('status')!.get('zaak')!.get('hoofdzaak')!.get('deelzaken')!;
    assert.equal(sixth.size, 0);
  });

  it('knows each resource of this registry by its own attributes, and leaves those of remote resources to when they are fetched', () => {
    assert.deepEqual([...parseExpand('gezetdoor.statussen.zaak', 'status').keys()], ['gezetdoor']);
    assert.deepEqual([...parseExpand('zaaktype.catalogus.wat.dan.ook').get('zaaktype')!.keys()], ['catalogus']);
  });
});

for (const backend of BACKENDS) {
  describe(`expand plugin on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    let hoofdzaak: any;
    let family: ZaakFamily;
    let geheimeDeelzaak: any;
    let relevant: any;
    let geheimRelevant: any;
    const as = async (clientId: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), ...(await apps.headers(clientId)) } });
    const get = (path: string) => as('alles', path);
    const post = async (path: string, json: unknown) => {
      const response = await as('alles', path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const withoutExpand = ({ _expand, ...resource }: any) => resource;

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [expand()], authorization: apps.authorization });
      hoofdzaak = await post('/zaken', zaakInput());
      relevant = await post('/zaken', zaakInput());
      geheimRelevant = await post('/zaken', zaakInput({ zaaktype: ZAAKTYPE_GEHEIM }));
      family = await createZaakFamily({ ...api, request: (path, init = {}) => as('alles', path, init) }, {
        hoofdzaak: hoofdzaak.url,
        relevanteAndereZaken: [
          { url: relevant.url, aardRelatie: 'vervolg' },
          { url: geheimRelevant.url, aardRelatie: 'onderwerp' },
          { url: 'http://andere-registratie.test/zaken/api/v1/zaken/12345678-1234-4123-8123-123456789012', aardRelatie: 'bijdrage' },
        ],
      });
      geheimeDeelzaak = await post('/zaken', zaakInput({ zaaktype: ZAAKTYPE_GEHEIM, hoofdzaak: hoofdzaak.url }));
    });
    after(async () => api?.close());

    it('expands every allowed path of a zaak into exactly what the direct GETs answer', async () => {
      const response = await get(`/zaken/${family.zaak.uuid}?expand=${EVERY_PATH}`);
      assert.equal(response.status, 200, response.text);
      const { _expand: expanded, ...zaak } = response.body;
      assert.deepEqual(zaak, (await get(family.zaak.url)).body, 'the zaak itself is unchanged');
      const direct = async (url: string) => (await get(url)).body;

      assert.equal(expanded.zaaktype.url, ZAAKTYPE);
      assert.deepEqual(withoutExpand(expanded.status), await direct(family.status.url));
      assert.equal(expanded.status._expand.statustype.url, TYPES.statustypeStart);
      assert.deepEqual(withoutExpand(expanded.resultaat), await direct(family.resultaat.url));
      assert.equal(expanded.resultaat._expand.resultaattype.url, TYPES.resultaattype);
      assert.deepEqual(expanded.rollen.map(withoutExpand), [await direct(family.rol.url)]);
      assert.equal(expanded.rollen[0]._expand.roltype.url, TYPES.roltypeBehandelaar);
      assert.deepEqual(expanded.hoofdzaak, await direct(hoofdzaak.url));
      assert.deepEqual(expanded.deelzaken, []);
      assert.deepEqual(
        expanded.relevanteAndereZaken.map((z: any) => z.url),
        [relevant.url, geheimRelevant.url],
        'local zaken only: another registry is not expanded',
      );
      assert.deepEqual(expanded.eigenschappen, [await direct(family.zaakeigenschap.url)]);
      assert.deepEqual(expanded.zaakobjecten, [await direct(family.zaakobject.url)]);
      assert.deepEqual(expanded.zaakinformatieobjecten, [await direct(family.zaakinformatieobject.url)]);
    });

    it('answers an empty relation with {} for an object and [] for a list', async () => {
      const bare = await post('/zaken', zaakInput());
      const response = await get(`/zaken/${bare.uuid}?expand=status,resultaat,hoofdzaak,rollen,deelzaken,zaakobjecten,relevanteAndereZaken`);
      assert.deepEqual(response.body._expand, { status: {}, resultaat: {}, hoofdzaak: {}, rollen: [], deelzaken: [], zaakobjecten: [], relevanteAndereZaken: [] });
      assert.equal((await get(bare.url)).body._expand, undefined, 'no expand, no _expand');
    });

    it('goes as deep as asked, through this registry and into catalog resources', async () => {
      const deep = (await get(`/zaken/${family.zaak.uuid}?expand=hoofdzaak.deelzaken.status.zaak.hoofdzaak.deelzaken.status.statustype`)).body;
      const deelzaken = deep._expand.hoofdzaak._expand.deelzaken;
      assert.deepEqual(deelzaken.map((z: any) => z.url), [family.zaak.url, geheimeDeelzaak.url]);
      const again = deelzaken[0]._expand.status._expand.zaak._expand.hoofdzaak._expand.deelzaken;
      assert.deepEqual(again.map((z: any) => z.url), [family.zaak.url, geheimeDeelzaak.url], 'the sixth level');
      assert.equal(again[0]._expand.status._expand.statustype.url, TYPES.statustypeStart, 'the eighth level');
      assert.deepEqual(again[1]._expand.status, {});

      const catalog = (await get(`/zaken/${family.zaak.uuid}?expand=zaaktype.statustypen.zaaktype.roltypen,status.statustype.zaaktype`)).body._expand;
      assert.deepEqual(catalog.zaaktype._expand.statustypen.map((t: any) => t.url), [TYPES.statustypeStart, TYPES.statustypeEind]);
      const roltypen = catalog.zaaktype._expand.statustypen[1]._expand.zaaktype._expand.roltypen;
      assert.deepEqual(roltypen.map((t: any) => t.url), [TYPES.roltypeInitiator, TYPES.roltypeBehandelaar, TYPES.roltypeCoordinator]);
      assert.equal(catalog.status._expand.statustype._expand.zaaktype.url, ZAAKTYPE);
    });

    it('expands every zaak of a list page and of a _zoek page', async () => {
      const list = await get(`/zaken?expand=zaaktype,status.statustype`);
      assert.equal(list.status, 200);
      assert.ok(list.body.results.length >= 5);
      for (const zaak of list.body.results) {
        assert.equal(zaak._expand.zaaktype.url, zaak.zaaktype);
        if (zaak.status) assert.equal(zaak._expand.status._expand.statustype.url, TYPES.statustypeStart);
        else assert.deepEqual(zaak._expand.status, {});
      }
      const search = await as('alles', '/zaken/_zoek', { method: 'POST', json: { uuid__in: [family.zaak.uuid], expand: 'rollen.roltype' } });
      assert.equal(search.status, 200, search.text);
      assert.deepEqual(search.body.results.map((z: any) => z._expand.rollen[0]._expand.roltype.url), [TYPES.roltypeBehandelaar]);

      const both = await as('alles', '/zaken/_zoek?expand=status.statustype', { method: 'POST', json: { uuid__in: [family.zaak.uuid], expand: 'rollen' } });
      assert.equal(both.status, 200, both.text);
      const [found] = both.body.results;
      assert.equal(found._expand.status._expand.statustype.url, TYPES.statustypeStart, 'the query parameter');
      assert.deepEqual(found._expand.rollen.map((r: any) => r.url), [family.rol.url], 'and the deprecated body property');
    });

    it('answers a path that is no expandable attribute with 404 invalid-expand-field (zrc-027)', async () => {
      const cases = [
        'onbekend',
        'identificatie',
        'status.onbekend',
        'hoofdzaak.deelzaken.status.zaak.onbekend',
        // Checked once the catalog answered: an attribute it lacks, or one that holds no URL.
        'zaaktype.onbekend',
        'zaaktype.vertrouwelijkheidaanduiding',
        'status.statustype.zaaktype.volgnummer',
      ];
      for (const path of cases) {
        for (const response of [
          await get(`/zaken/${family.zaak.uuid}?expand=${path}`),
          await get(`/zaken?expand=status,${path}`),
          await as('alles', '/zaken/_zoek', { method: 'POST', json: { expand: path } }),
          await as('alles', `/zaken/_zoek?expand=${path}`, { method: 'POST', json: {} }),
        ]) {
          assert.equal(response.status, 404, `${path}: ${response.text}`);
          assert.equal(response.headers.get('content-type'), 'application/problem+json');
          assert.equal(response.body.code, 'invalid-expand-field');
          assert.equal(response.body.invalidParams[0].name, 'expand');
          assert.match(response.body.invalidParams[0].reason, new RegExp(path.replace(/\./g, '\\.')));
        }
      }
    });

    it('answers 404 expand-unavailable for a link to a host the registry may not fetch from (zrc-028)', async () => {
      for (const path of ['zaakinformatieobjecten.informatieobject', 'zaakobjecten.object']) {
        const response = await get(`/zaken/${family.zaak.uuid}?expand=${path}`);
        assert.equal(response.status, 404, `${path}: ${response.text}`);
        assert.equal(response.body.code, 'expand-unavailable');
        assert.match(response.body.invalidParams[0].reason, /niet toegestaan/);
      }
      // Empty links (no communicatiekanaal, selectielijstklasse) fetch nothing and are {} and [].
      const empty = (await get(`/zaken/${family.zaak.uuid}?expand=communicatiekanaal,selectielijstklasse,productenOfDiensten`)).body._expand;
      assert.deepEqual(empty, { communicatiekanaal: {}, selectielijstklasse: {}, productenOfDiensten: [] });
    });

    it('answers 404 when the expanded response cannot be made (a zaaktype the catalog does not know)', async () => {
      const stray = await post('/zaken', zaakInput({ zaaktype: UNKNOWN_ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' }));
      const response = await get(`/zaken/${stray.uuid}?expand=zaaktype`);
      assert.equal(response.status, 404);
      assert.equal(response.body.code, 'expand-unavailable');
      assert.equal((await get(`/zaken/${stray.uuid}?expand=status`)).status, 200);
    });

    it('never shows through expand a zaak the client may not read', async () => {
      const onderGeheim = await post('/zaken', zaakInput({ hoofdzaak: (await post('/zaken', zaakInput({ zaaktype: ZAAKTYPE_GEHEIM }))).url }));
      const mine = await as('beperkt', `/zaken/${onderGeheim.uuid}?expand=hoofdzaak`);
      assert.equal(mine.status, 200, mine.text);
      assert.deepEqual(mine.body._expand.hoofdzaak, {}, 'a hoofdzaak it may not read stays empty');
      assert.equal((await get(`/zaken/${onderGeheim.uuid}?expand=hoofdzaak`)).body._expand.hoofdzaak.zaaktype, ZAAKTYPE_GEHEIM);

      const deelzaken = (await as('beperkt', `/zaken/${hoofdzaak.uuid}?expand=deelzaken`)).body._expand.deelzaken;
      assert.deepEqual(deelzaken.map((z: any) => z.url), [family.zaak.url], 'the geheime deelzaak is left out');
      const relevante = (await as('beperkt', `/zaken/${family.zaak.uuid}?expand=relevanteAndereZaken,status.zaak`)).body._expand;
      assert.deepEqual(relevante.relevanteAndereZaken.map((z: any) => z.url), [relevant.url]);
      assert.equal(relevante.status._expand.zaak.url, family.zaak.url);

      const page = (await as('beperkt', `/zaken?expand=hoofdzaak.deelzaken`)).body.results;
      const seen = JSON.stringify(page);
      assert.ok(!seen.includes(ZAAKTYPE_GEHEIM), 'no geheime zaak anywhere in the expanded page');
      assert.ok(page.some((z: any) => z._expand.hoofdzaak.url === hoofdzaak.url));
    });
  });
}
