import assert from 'node:assert/strict';
import { BACKENDS } from '../../test/helpers/backends.js';
import { TYPES, ZAAKTYPE, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { statementsDuring } from '../../test/helpers/statements.js';
import { expand } from './index.js';

/** Four levels from each zaak of a page, through every kind of relation of this registry and the catalog. */
const DEPTH_FOUR = [
  'hoofdzaak.status.statustype.zaaktype',
  'rollen.statussen.zaak.zaaktype',
  'status.gezetdoor.roltype.zaaktype',
  'eigenschappen.zaak.hoofdzaak.status',
  'zaaktype.statustypen.zaaktype.roltypen',
].join(',');

/** Objects under `_expand`, at every level. */
function expandedObjects(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + expandedObjects(item), 0);
  if (!value || typeof value !== 'object') return 0;
  const expanded = (value as { _expand?: Record<string, unknown> })._expand;
  if (!expanded) return 0;
  let count = 0;
  for (const nested of Object.values(expanded)) {
    const objects = Array.isArray(nested) ? nested : Object.keys(nested as object).length ? [nested] : [];
    count += objects.length + objects.reduce((n: number, item) => n + expandedObjects(item), 0);
  }
  return count;
}

for (const backend of BACKENDS) {
  describe(`expand on ${backend.name}: batches, cycles and limits`, () => {
    let api: TestServer;
    let hoofdzaak: any;
    let small: { hoofdzaak: any; deelzaken: any[] };
    const post = async (path: string, json: unknown) => {
      const response = await api.request(path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const statements = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
      let response!: Awaited<ReturnType<TestServer['request']>>;
      const sql = await statementsDuring(api.registry.services.storage.knex, async () => (response = await api.request(path, init)));
      assert.equal(response.status, 200, response.text);
      return { n: sql.length, body: response.body };
    };

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [expand()] });
      hoofdzaak = await post('/zaken', zaakInput());
      hoofdzaak.status = (await post('/statussen', { zaak: hoofdzaak.url, statustype: TYPES.statustypeEind, datumStatusGezet: '2030-01-01T10:00:00Z' })).url;
      const kleine = await post('/zaken', zaakInput());
      small = { hoofdzaak: kleine, deelzaken: [await post('/zaken', zaakInput({ hoofdzaak: kleine.url })), await post('/zaken', zaakInput({ hoofdzaak: kleine.url }))] };
      for (let i = 0; i < 100; i++) {
        const zaak = await post('/zaken', zaakInput({ startdatum: '2030-01-01', hoofdzaak: hoofdzaak.url }));
        const rol = await post('/rollen', { zaak: zaak.url, betrokkeneType: 'medewerker', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'x', betrokkeneIdentificatie: { identificatie: `m${i}` } });
        await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2030-01-01T10:00:00Z', gezetdoor: rol.url });
        await post(`/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: TYPES.eigenschap, waarde: String(i) });
      }
    });
    after(async () => api?.close());

    it('runs as many statements for a page of 100 zaken expanded four levels deep as for a page of one', async () => {
      const page = await statements(`/zaken?startdatum=2030-01-01&expand=${DEPTH_FOUR}`);
      assert.equal(page.body.results.length, 100);
      const [zaak] = page.body.results;
      assert.equal(zaak._expand.rollen[0]._expand.statussen[0]._expand.zaak._expand.zaaktype.url, ZAAKTYPE);
      assert.equal(zaak._expand.status._expand.gezetdoor._expand.roltype._expand.zaaktype.url, ZAAKTYPE);
      assert.equal(zaak._expand.hoofdzaak._expand.status._expand.statustype._expand.zaaktype.url, ZAAKTYPE);
      assert.equal(zaak._expand.eigenschappen[0]._expand.zaak._expand.hoofdzaak._expand.status.url, hoofdzaak.status);

      const single = await statements(`/zaken?startdatum=2030-01-01&identificatie=${zaak.identificatie}&expand=${DEPTH_FOUR}`);
      assert.equal(single.body.results.length, 1);
      // Both read with their renderings stored (the first page stored them): the same statements.
      const again = await statements(`/zaken?startdatum=2030-01-01&expand=${DEPTH_FOUR}`);
      const objectsOfOne = expandedObjects(single.body.results);
      assert.equal(expandedObjects(again.body.results), 100 * objectsOfOne);
      assert.ok(objectsOfOne >= 20, `${objectsOfOne} objects per zaak`);
      assert.equal(again.n, single.n, `100 zaken: ${again.n} statements, 1 zaak: ${single.n}`);
      assert.ok(again.n <= 40, `${again.n} statements`);
    });

    it('reads a resource reached again along a cycle once: going round costs no statement', async () => {
      const [deelzaak] = small.deelzaken;
      await statements(`/zaken/${deelzaak.uuid}`);
      const once = await statements(`/zaken/${deelzaak.uuid}?expand=hoofdzaak.deelzaken`);
      const round = await statements(`/zaken/${deelzaak.uuid}?expand=hoofdzaak.deelzaken.hoofdzaak.deelzaken.hoofdzaak.deelzaken.hoofdzaak`);
      assert.equal(round.n, once.n, `${round.n} statements going round three times, ${once.n} once`);
      const deepest = round.body._expand.hoofdzaak._expand.deelzaken[1]._expand.hoofdzaak._expand.deelzaken[0]._expand.hoofdzaak._expand.deelzaken[1]._expand.hoofdzaak;
      assert.equal(deepest.url, small.hoofdzaak.url);
      assert.equal(deepest._expand, undefined, 'the last level has nothing expanded');
      assert.equal(expandedObjects(round.body), 1 + 2 + 2 + 4 + 4 + 8 + 8);

      const [zaak] = (await statements('/zaken?startdatum=2030-01-01')).body.results;
      const records = await statements(`/zaken/${zaak.uuid}?expand=status.gezetdoor.statussen`);
      const recordsRound = await statements(`/zaken/${zaak.uuid}?expand=status.gezetdoor.statussen.zaak.status.gezetdoor.statussen.gezetdoor.zaak`);
      assert.equal(recordsRound.n, records.n, 'records and the zaak itself are not read again either');
    });
  });
}

for (const backend of BACKENDS) {
  describe(`expand on ${backend.name}: limits`, () => {
    let api: TestServer;
    let hoofdzaak: any;
    let deelzaak: any;
    const post = async (path: string, json: unknown) => {
      const response = await api.request(path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [expand({ maxObjects: 5, maxRemoteFetches: 1 })] });
      hoofdzaak = await post('/zaken', zaakInput());
      for (let i = 0; i < 3; i++) {
        deelzaak = await post('/zaken', zaakInput({ hoofdzaak: hoofdzaak.url }));
        await post('/statussen', { zaak: deelzaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
      }
    });
    after(async () => api?.close());

    it('answers a request within the limits in full', async () => {
      const fits = await api.request(`/zaken/${hoofdzaak.uuid}?expand=deelzaken,zaaktype`);
      assert.equal(fits.status, 200, fits.text);
      assert.equal(expandedObjects(fits.body), 4);
      assert.equal((await api.request(`/zaken/${deelzaak.uuid}?expand=status.statustype`)).status, 200);
    });

    it('answers a request over maxObjects or maxRemoteFetches with 400 expand-limit naming the limit, never a part of the answer', async () => {
      const cases: [string, string][] = [
        [`/zaken/${hoofdzaak.uuid}?expand=deelzaken.status`, 'maxObjects = 5'],
        [`/zaken?expand=status,rollen,deelzaken,hoofdzaak`, 'maxObjects = 5'],
        [`/zaken/${deelzaak.uuid}?expand=zaaktype,status.statustype`, 'maxRemoteFetches = 1'],
        [`/zaken/${deelzaak.uuid}?expand=zaaktype.statustypen`, 'maxRemoteFetches = 1'],
      ];
      for (const [path, limit] of cases) {
        const response = await api.request(path);
        assert.equal(response.status, 400, `${path}: ${response.text}`);
        assert.equal(response.headers.get('content-type'), 'application/problem+json');
        assert.equal(response.body.code, 'expand-limit');
        assert.deepEqual(response.body.invalidParams.map((p: any) => [p.name, p.code]), [['expand', 'expand-limit']]);
        assert.ok(response.body.invalidParams[0].reason.includes(limit), response.body.invalidParams[0].reason);
        assert.equal(response.body.results, undefined);
      }
    });
  });
}
