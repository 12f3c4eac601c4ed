import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { zrcRules } from '../../src/index.js';
import { testApps } from '../../test/helpers/apps.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { RSIN, startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { startZgwWorld, type ZgwWorld } from '../../test/helpers/zgw-world.js';

/**
 * A zaakeigenschap's waarde against its eigenschap's specificatie, through HTTP against a Catalogi
 * API on 127.0.0.1: a registry in the default `warn` mode and one in `reject` mode.
 */

type Specificatie = { formaat: string; lengte: string; kardinaliteit: string; waardenverzameling?: string[] };
const EIGENSCHAPPEN: Record<string, Specificatie | undefined> = {
  soort: { formaat: 'tekst', lengte: '20', kardinaliteit: '1', waardenverzameling: ['afval', 'verlichting', 'groen', 'overig'] },
  omschrijving: { formaat: 'tekst', lengte: '10', kardinaliteit: 'N' },
  bedrag: { formaat: 'getal', lengte: '5,2', kardinaliteit: 'N' },
  datum: { formaat: 'datum', lengte: '8', kardinaliteit: 'N' },
  moment: { formaat: 'datum_tijd', lengte: '14', kardinaliteit: 'N' },
  kenmerk: { formaat: 'tekst', lengte: '10', kardinaliteit: '2' },
  kenteken: undefined,
};
type Naam = keyof typeof EIGENSCHAPPEN;

/** Values the specificatie allows, per eigenschap. */
const MEETS: [Naam, string][] = [
  ['soort', 'groen'],
  ['omschrijving', 'tien tekst'],
  ['omschrijving', 'é'.repeat(10)],
  ['omschrijving', '😀'.repeat(10)],
  ['omschrijving', ''],
  ['bedrag', '12345.67'],
  ['bedrag', '-12345,6'],
  ['bedrag', '007'],
  ['bedrag', '1.500'],
  ['datum', '20240229'],
  ['datum', '2024-03-01'],
  ['moment', '20240301101500'],
  ['moment', '2024-03-01T10:15:00+01:00'],
  ['moment', '2024-03-01T10:15Z'],
  ['moment', '2024-03-01T10:15:00.123456'],
  ['kenteken', 'wat-dan-ook, zonder specificatie'],
];

/** Values it does not, with the code the mismatch is named by. */
const MISSES: [Naam, string, string][] = [
  ['omschrijving', 'elf tekens!', 'specificatie-lengte'],
  ['omschrijving', 'é'.repeat(11), 'specificatie-lengte'],
  ['bedrag', '123456', 'specificatie-lengte'],
  ['bedrag', '1.234', 'specificatie-lengte'],
  ['bedrag', 'twaalf', 'specificatie-formaat'],
  ['bedrag', '1e5', 'specificatie-formaat'],
  ['bedrag', '1.000,50', 'specificatie-formaat'],
  ['bedrag', '', 'specificatie-formaat'],
  ['datum', '20230229', 'specificatie-formaat'],
  ['datum', '2024-02-30', 'specificatie-formaat'],
  ['datum', '01-03-2024', 'specificatie-formaat'],
  ['datum', '2024-0301', 'specificatie-formaat'],
  ['moment', '20240301251500', 'specificatie-formaat'],
  ['moment', '2024-03-01', 'specificatie-formaat'],
  ['moment', '2024-03-01 10:15:00', 'specificatie-formaat'],
  ['soort', 'GROEN', 'specificatie-waardenverzameling'],
];

const WARNING_VALUE = /^199 - "([a-z-]+): [\x20-\x21\x23-\x7e]+"$/;
/** The codes of an `X-Warning` header, in order. */
function warningCodes(header: string | null): string[] {
  if (header === null) return [];
  assert.match(header, /^[\x20-\x7e]+$/, 'printable ASCII only');
  return header.split(/, (?=199 )/).map((value) => {
    const match = WARNING_VALUE.exec(value);
    assert.ok(match, `an RFC 7234 warning-value: ${value}`);
    return match[1];
  });
}

for (const backend of BACKENDS) {
  describe(`zrc-rules: zaakeigenschap waarde against the specificatie on ${backend.name}`, () => {
    let world: ZgwWorld;
    let warn: TestServer;
    let reject: TestServer;
    let zaaktype: string;
    const eigenschap = {} as Record<Naam, string>;
    const apps = testApps();

    const call = async (api: TestServer, path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), ...(await apps.headers('alles')) } });
    const newZaak = async (api: TestServer) => {
      const response = await call(api, '/zaken', {
        method: 'POST',
        json: { zaaktype, bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, startdatum: '2024-03-01' },
      });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const addEigenschap = (api: TestServer, zaak: any, naam: Naam, waarde: string) =>
      call(api, `/zaken/${zaak.uuid}/zaakeigenschappen`, { method: 'POST', json: { zaak: zaak.url, eigenschap: eigenschap[naam], waarde } });
    const storedWaarden = async (api: TestServer, zaak: any) =>
      ((await call(api, `/zaken/${zaak.uuid}/zaakeigenschappen`)).body as any[]).map((e) => e.waarde);

    before(async () => {
      world = await startZgwWorld();
      const c = (path: string) => `${world.catalog.origin}/catalogi/api/v1${path}`;
      zaaktype = c('/zaaktypen/specificaties');
      for (const [index, [naam, specificatie]] of Object.entries(EIGENSCHAPPEN).entries()) {
        const path = `/catalogi/api/v1/eigenschappen/spec-${index}`;
        eigenschap[naam] = world.catalog.put(path, { url: world.catalog.origin + path, zaaktype, naam, definitie: naam, ...(specificatie ? { specificatie: { groep: '', ...specificatie } } : {}) });
      }
      world.catalog.put('/catalogi/api/v1/zaaktypen/specificaties', {
        url: zaaktype,
        identificatie: 'ZT-SPEC',
        vertrouwelijkheidaanduiding: 'openbaar',
        concept: false,
        productenOfDiensten: [],
        statustypen: [world.types.statusStart],
        resultaattypen: [],
        roltypen: [],
        eigenschappen: Object.values(eigenschap),
        informatieobjecttypen: [],
      });
      const options = { preset: 'standard' as const, catalog: undefined, remote: { allowedHosts: world.allowedHosts }, authorization: apps.authorization };
      warn = await startRegistry(await backend.open(), options);
      reject = await startRegistry(await backend.open(), { ...options, plugins: [zrcRules({ eigenschapSpecificatie: 'reject' })] });
    });
    after(async () => {
      await warn?.close();
      await reject?.close();
      await world?.close();
    });

    describe('warn (the default)', () => {
      it('a waarde that meets its specificatie is stored without X-Warning, for each formaat', async () => {
        const zaak = await newZaak(warn);
        for (const [naam, waarde] of MEETS) {
          const response = await addEigenschap(warn, zaak, naam, waarde);
          assert.equal(response.status, 201, `${naam} ${waarde}: ${response.text}`);
          assert.equal(response.headers.get('x-warning'), null, `${naam} ${waarde}`);
        }
        assert.deepEqual(await storedWaarden(warn, zaak), MEETS.map(([, waarde]) => waarde));
      });

      it('a waarde that does not is stored and answered 201 with an X-Warning naming the mismatch', async () => {
        const zaak = await newZaak(warn);
        for (const [naam, waarde, code] of MISSES) {
          const response = await addEigenschap(warn, zaak, naam, waarde);
          assert.equal(response.status, 201, `${naam} ${waarde}: ${response.text}`);
          assert.deepEqual(warningCodes(response.headers.get('x-warning')), [code], `${naam} ${JSON.stringify(waarde)}`);
          assert.equal(response.body.waarde, waarde);
        }
        assert.deepEqual(await storedWaarden(warn, zaak), MISSES.map(([, waarde]) => waarde));
      });

      it('names every mismatch of one waarde, each as its own warning-value, in ASCII', async () => {
        const zaak = await newZaak(warn);
        const response = await addEigenschap(warn, zaak, 'soort', 'één soort die niet bestaat');
        assert.equal(response.status, 201, response.text);
        const header = response.headers.get('x-warning');
        assert.deepEqual(warningCodes(header), ['specificatie-lengte', 'specificatie-waardenverzameling']);
        assert.match(header!, /^199 - "specificatie-lengte: De waarde is 26 tekens lang; de specificatie staat er 20 toe\."/);
      });

      it('kardinaliteit: one value too many for the zaak is stored with a warning; other zaken and eigenschappen do not count', async () => {
        const zaak = await newZaak(warn);
        const other = await newZaak(warn);
        assert.equal((await addEigenschap(warn, other, 'kenmerk', 'elders')).status, 201);
        for (const waarde of ['een', 'twee']) {
          const response = await addEigenschap(warn, zaak, 'kenmerk', waarde);
          assert.deepEqual([response.status, response.headers.get('x-warning')], [201, null], waarde);
        }
        const third = await addEigenschap(warn, zaak, 'kenmerk', 'drie');
        assert.equal(third.status, 201, third.text);
        assert.deepEqual(warningCodes(third.headers.get('x-warning')), ['specificatie-kardinaliteit']);
        assert.match(third.headers.get('x-warning')!, /krijgt hiermee 3 waarden van deze eigenschap; de specificatie staat er 2 toe/);
        assert.equal((await addEigenschap(warn, zaak, 'soort', 'afval')).headers.get('x-warning'), null);
        assert.deepEqual(warningCodes((await addEigenschap(warn, zaak, 'soort', 'groen')).headers.get('x-warning')), ['specificatie-kardinaliteit']);
        for (let i = 0; i < 3; i++) assert.equal((await addEigenschap(warn, zaak, 'kenteken', `AB-${i}`)).headers.get('x-warning'), null, 'no specificatie, no limit');
        assert.deepEqual(await storedWaarden(warn, zaak), ['een', 'twee', 'drie', 'afval', 'groen', 'AB-0', 'AB-1', 'AB-2']);
      });

      it('update and partial update check the waarde as it will be stored: warned, stored, and quiet again once it meets it', async () => {
        const zaak = await newZaak(warn);
        const created = (await addEigenschap(warn, zaak, 'bedrag', '10')).body;
        const patched = await call(warn, created.url, { method: 'PATCH', json: { waarde: 'tien' } });
        assert.equal(patched.status, 200, patched.text);
        assert.deepEqual(warningCodes(patched.headers.get('x-warning')), ['specificatie-formaat']);
        assert.equal((await call(warn, created.url)).body.waarde, 'tien');
        const put = await call(warn, created.url, { method: 'PUT', json: { zaak: zaak.url, eigenschap: eigenschap.bedrag, waarde: '123456,789' } });
        assert.equal(put.status, 200, put.text);
        assert.deepEqual(warningCodes(put.headers.get('x-warning')), ['specificatie-lengte']);
        const fixed = await call(warn, created.url, { method: 'PATCH', json: { waarde: '12,5' } });
        assert.deepEqual([fixed.status, fixed.headers.get('x-warning')], [200, null]);
        const untouched = await call(warn, created.url, { method: 'PATCH', json: {} });
        assert.deepEqual([untouched.status, untouched.headers.get('x-warning'), untouched.body.waarde], [200, null, '12,5']);
      });

      it('an update counts the zaak’s other values of the eigenschap, not the one it changes', async () => {
        const zaak = await newZaak(warn);
        const first = (await addEigenschap(warn, zaak, 'soort', 'afval')).body;
        const alone = await call(warn, first.url, { method: 'PATCH', json: { waarde: 'groen' } });
        assert.deepEqual([alone.status, alone.headers.get('x-warning')], [200, null]);
        await addEigenschap(warn, zaak, 'soort', 'overig');
        const crowded = await call(warn, first.url, { method: 'PATCH', json: { waarde: 'afval' } });
        assert.deepEqual(warningCodes(crowded.headers.get('x-warning')), ['specificatie-kardinaliteit']);
      });

      it('only the waarde changes: another eigenschap on update is 400 eigenschap/wijzigen-niet-toegelaten', async () => {
        const zaak = await newZaak(warn);
        const created = (await addEigenschap(warn, zaak, 'omschrijving', 'eerst')).body;
        for (const [method, json] of [
          ['PATCH', { eigenschap: eigenschap.kenteken }],
          ['PUT', { zaak: zaak.url, eigenschap: eigenschap.kenteken, waarde: 'eerst' }],
        ] as const) {
          const response = await call(warn, created.url, { method, json });
          assert.equal(response.status, 400, `${method}: ${response.text}`);
          assert.deepEqual(response.body.invalidParams.map((p: any) => [p.name, p.code]), [['eigenschap', 'wijzigen-niet-toegelaten']]);
        }
        assert.equal((await call(warn, created.url)).body.eigenschap, eigenschap.omschrijving);
      });

      it('the writes name X-Warning in Access-Control-Expose-Headers, so browser scripts may read it', async () => {
        const zaak = await newZaak(warn);
        const created = await addEigenschap(warn, zaak, 'omschrijving', 'kort');
        assert.equal(created.headers.get('access-control-expose-headers'), 'X-Warning');
        const patched = await call(warn, created.body.url, { method: 'PATCH', json: { waarde: 'veel te lang voor tien' } });
        assert.equal(patched.headers.get('access-control-expose-headers'), 'X-Warning');
        assert.equal((await call(warn, created.body.url)).headers.get('access-control-expose-headers'), null, 'reads carry no warning');
      });

      it('a CORS layer in front of the registry keeps its exposed headers, with X-Warning added', async () => {
        const app = express();
        app.use((_req, res, next) => {
          res.setHeader('Access-Control-Allow-Origin', '*');
          res.setHeader('Access-Control-Expose-Headers', 'Location, API-Version');
          next();
        });
        app.use('/zaken/api/v1', warn.registry.router);
        const server: Server = await new Promise((resolve) => {
          const s = app.listen(0, '127.0.0.1', () => resolve(s));
        });
        try {
          const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/zaken/api/v1`;
          const zaak = await newZaak(warn);
          const response = await fetch(`${base}/zaken/${zaak.uuid}/zaakeigenschappen`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(await apps.headers('alles')) },
            body: JSON.stringify({ zaak: `${base}/zaken/${zaak.uuid}`, eigenschap: eigenschap.bedrag, waarde: 'veel' }),
          });
          assert.equal(response.status, 201, await response.text());
          assert.equal(response.headers.get('access-control-expose-headers'), 'Location, API-Version, X-Warning');
          assert.deepEqual(warningCodes(response.headers.get('x-warning')), ['specificatie-formaat']);
        } finally {
          await new Promise<void>((resolve) => server.close(() => resolve()));
        }
      });

      it('the served OpenAPI document names X-Warning on the success answers of create, update and partial update', async () => {
        const document = (await warn.request('/openapi.json')).body;
        const header = (path: string, method: string, status: string) => document.paths[path][method].responses[status].headers?.['X-Warning'];
        for (const [path, method, status] of [
          ['/zaken/{zaak_uuid}/zaakeigenschappen', 'post', '201'],
          ['/zaken/{zaak_uuid}/zaakeigenschappen/{uuid}', 'put', '200'],
          ['/zaken/{zaak_uuid}/zaakeigenschappen/{uuid}', 'patch', '200'],
        ]) {
          assert.deepEqual(header(path, method, status)?.schema, { type: 'string' }, `${method} ${path}`);
          assert.match(header(path, method, status).description, /niet voldoet aan de specificatie/);
        }
        assert.equal(header('/zaken/{zaak_uuid}/zaakeigenschappen/{uuid}', 'get', '200'), undefined);
      });
    });

    describe('reject', () => {
      it('a mismatch is 400 problem+json with invalidParams on waarde, and nothing is stored', async () => {
        const zaak = await newZaak(reject);
        for (const [naam, waarde, code] of MISSES) {
          const response = await addEigenschap(reject, zaak, naam, waarde);
          assert.equal(response.status, 400, `${naam} ${waarde}: ${response.text}`);
          assert.equal(response.headers.get('content-type'), 'application/problem+json');
          assert.equal(response.headers.get('x-warning'), null);
          assert.deepEqual(response.body.invalidParams.map((p: any) => [p.name, p.code]), [['waarde', code]], `${naam} ${waarde}`);
        }
        assert.deepEqual(await storedWaarden(reject, zaak), []);
        const both = await addEigenschap(reject, zaak, 'soort', 'een soort die niet bestaat');
        assert.deepEqual(both.body.invalidParams.map((p: any) => p.code), ['specificatie-lengte', 'specificatie-waardenverzameling']);
      });

      it('a waarde that meets it is stored, without X-Warning', async () => {
        const zaak = await newZaak(reject);
        for (const [naam, waarde] of MEETS) {
          const response = await addEigenschap(reject, zaak, naam, waarde);
          assert.deepEqual([response.status, response.headers.get('x-warning')], [201, null], `${naam} ${waarde}: ${response.text}`);
        }
        assert.equal((await storedWaarden(reject, zaak)).length, MEETS.length);
      });

      it('kardinaliteit: the value too many is 400 waarde/specificatie-kardinaliteit and not stored', async () => {
        const zaak = await newZaak(reject);
        assert.equal((await addEigenschap(reject, zaak, 'soort', 'afval')).status, 201);
        const second = await addEigenschap(reject, zaak, 'soort', 'groen');
        assert.equal(second.status, 400, second.text);
        assert.deepEqual(second.body.invalidParams.map((p: any) => [p.name, p.code]), [['waarde', 'specificatie-kardinaliteit']]);
        assert.deepEqual(await storedWaarden(reject, zaak), ['afval']);
      });

      it('concurrent writes cannot together exceed the kardinaliteit', async () => {
        const zaak = await newZaak(reject);
        const answers = await Promise.all(['a', 'b', 'c', 'd'].map((waarde) => addEigenschap(reject, zaak, 'kenmerk', waarde)));
        assert.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 400, 400]);
        assert.equal((await storedWaarden(reject, zaak)).length, 2);
      });

      it('an update to a mismatching waarde is 400 and leaves the stored one', async () => {
        const zaak = await newZaak(reject);
        const created = (await addEigenschap(reject, zaak, 'datum', '20240301')).body;
        for (const [method, json] of [
          ['PATCH', { waarde: '2024-13-01' }],
          ['PUT', { zaak: zaak.url, eigenschap: eigenschap.datum, waarde: 'morgen' }],
        ] as const) {
          const response = await call(reject, created.url, { method, json });
          assert.equal(response.status, 400, `${method}: ${response.text}`);
          assert.deepEqual(response.body.invalidParams.map((p: any) => [p.name, p.code]), [['waarde', 'specificatie-formaat']]);
        }
        assert.equal((await call(reject, created.url)).body.waarde, '20240301');
        assert.equal((await call(reject, created.url, { method: 'PATCH', json: { waarde: '2024-03-02' } })).status, 200);
      });

      it('neither exposes nor documents X-Warning', async () => {
        const zaak = await newZaak(reject);
        assert.equal((await addEigenschap(reject, zaak, 'omschrijving', 'kort')).headers.get('access-control-expose-headers'), null);
        const document = (await reject.request('/openapi.json')).body;
        assert.equal(document.paths['/zaken/{zaak_uuid}/zaakeigenschappen'].post.responses['201'].headers['X-Warning'], undefined);
      });
    });
  });
}
