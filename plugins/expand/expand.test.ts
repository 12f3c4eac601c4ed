import assert from 'node:assert/strict';
import { testApps } from '../../test/helpers/apps.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { TYPES, ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { createZaakFamily, type ZaakFamily } from '../../test/helpers/zaak-family.js';
import { expand, parseExpand } from './index.js';

const EVERY_PATH = 'zaaktype,status.statustype,resultaat.resultaattype,rollen.roltype,hoofdzaak,deelzaken,relevanteAndereZaken,eigenschappen,zaakobjecten,zaakinformatieobjecten';
const UNKNOWN_ZAAKTYPE = 'http://catalogus.test/api/v1/zaaktypen/99999999-9999-4999-8999-999999999999';

describe('expand: parsing', () => {
  it('builds one tree from comma-separated dot paths, at most three levels deep', () => {
    const tree = parseExpand(' status.statustype , status,hoofdzaak.deelzaken.status.statustype,');
    assert.deepEqual([...tree.keys()], ['status', 'hoofdzaak']);
    assert.deepEqual([...tree.get('status')!.keys()], ['statustype']);
    const third = tree.get('hoofdzaak')!.get('deelzaken')!.get('status')!;
    assert.equal(third.size, 0, 'the fourth level is dropped');
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

    it('goes three levels deep and answers deeper paths with three levels', async () => {
      const three = (await get(`/zaken/${family.zaak.uuid}?expand=hoofdzaak.deelzaken.status`)).body;
      const deelzaken = three._expand.hoofdzaak._expand.deelzaken;
      assert.deepEqual(deelzaken.map((z: any) => z.url), [family.zaak.url, geheimeDeelzaak.url]);
      assert.equal(deelzaken[0]._expand.status.url, family.status.url);
      assert.deepEqual(deelzaken[1]._expand.status, {});

      const four = (await get(`/zaken/${family.zaak.uuid}?expand=hoofdzaak.deelzaken.status.statustype`)).body;
      assert.deepEqual(four, three, 'the fourth level is left out');
      const statustype = (await get(`/zaken/${family.zaak.uuid}?expand=status.zaak.zaaktype`)).body._expand.status._expand.zaak._expand.zaaktype;
      assert.equal(statustype.url, ZAAKTYPE);
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
    });

    it('answers a path that is no expandable attribute with 404 invalid-expand-field, another source with 406', async () => {
      const cases: [string, number, string][] = [
        ['onbekend', 404, 'invalid-expand-field'],
        ['identificatie', 404, 'invalid-expand-field'],
        ['status.onbekend', 404, 'invalid-expand-field'],
        ['zaaktype.statustypen', 404, 'invalid-expand-field'],
        ['zaakinformatieobjecten.informatieobject', 406, 'expand-other-source'],
        ['communicatiekanaal', 406, 'expand-other-source'],
        ['zaakobjecten.object', 406, 'expand-other-source'],
      ];
      for (const [path, status, code] of cases) {
        for (const response of [
          await get(`/zaken/${family.zaak.uuid}?expand=${path}`),
          await get(`/zaken?expand=status,${path}`),
          await as('alles', '/zaken/_zoek', { method: 'POST', json: { expand: path } }),
        ]) {
          assert.equal(response.status, status, `${path}: ${response.text}`);
          assert.equal(response.headers.get('content-type'), 'application/problem+json');
          assert.equal(response.body.code, code);
          assert.equal(response.body.invalidParams[0].name, 'expand');
        }
      }
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

  describe(`expand plugin on ${backend.name}: loading in batches`, () => {
    let api: TestServer;
    const post = async (path: string, json: unknown) => {
      const response = await api.request(path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [expand()] });
      const hoofdzaak = await post('/zaken', zaakInput());
      for (let i = 0; i < 100; i++) {
        const zaak = await post('/zaken', zaakInput({ startdatum: '2030-01-01', hoofdzaak: hoofdzaak.url }));
        await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2030-01-01T10:00:00Z' });
        await post('/rollen', { zaak: zaak.url, betrokkeneType: 'medewerker', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'x', betrokkeneIdentificatie: { identificatie: `m${i}` } });
        await post(`/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: TYPES.eigenschap, waarde: String(i) });
      }
    });
    after(async () => api?.close());

    it('runs as many queries for a page of 100 zaken as for one', async () => {
      const knex = api.registry.services.storage.knex;
      const count = async (query: string) => {
        let n = 0;
        const listener = () => n++;
        knex.on('query', listener);
        const response = await api.request(`/zaken?${query}&expand=zaaktype,status.statustype,rollen.roltype,hoofdzaak.status,eigenschappen,resultaat,deelzaken`);
        knex.off('query', listener);
        assert.equal(response.status, 200, response.text);
        return { n, results: response.body.results };
      };
      const page = await count('startdatum=2030-01-01');
      assert.equal(page.results.length, 100);
      assert.ok(page.results.every((z: any) => z._expand.rollen.length === 1 && z._expand.eigenschappen.length === 1 && z._expand.hoofdzaak.url));
      const single = await count(`startdatum=2030-01-01&identificatie=${page.results[0].identificatie}`);
      assert.equal(single.results.length, 1);
      // Both read with their renderings stored (the page stored them): the same statements.
      const again = await count('startdatum=2030-01-01');
      assert.equal(again.n, single.n, `100 zaken: ${again.n} queries, 1 zaak: ${single.n}`);
      // Rendering the page's zaken the first time is one statement more, however many there are.
      assert.equal(page.n, again.n + 1);
      assert.ok(page.n <= 40, `${page.n} queries`);
    });
  });
}
