import assert from 'node:assert/strict';
import { signZgwJwt, staticAuthorizations, type Applicatie, type Plugin } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { requestGate } from '../../test/helpers/gate.js';
import { RSIN, RSIN_2, startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { startZgwWorld, type ZgwWorld } from '../../test/helpers/zgw-world.js';

/**
 * The zrc-rules plugin through HTTP, against a real Catalogi API, Documenten API and a third
 * registry on 127.0.0.1, as four applications: one with every authorization, a behandelaar without
 * the closed-zaak scopes, one with zaken.geforceerd-bijwerken and one with zaken.heropenen.
 */

const SECRET = 'zrc-rules-secret-of-at-least-32-bytes';
const BASE_SCOPES = ['zaken.lezen', 'zaken.aanmaken', 'zaken.bijwerken', 'zaken.statussen.toevoegen', 'zaken.verwijderen'];
const first = (body: any) => [body.invalidParams?.[0]?.name, body.invalidParams?.[0]?.code];
const codes = (body: any) => body.invalidParams.map((p: any) => [p.name, p.code]);

function app(clientId: string, zaaktype: string, scopes: string[], all = false): Applicatie {
  return {
    clientIds: [clientId],
    label: clientId,
    heeftAlleAutorisaties: all,
    autorisaties: [{ component: 'zrc', scopes, zaaktype, maxVertrouwelijkheidaanduiding: 'zeer_geheim' }],
  };
}

/** Records what the closing hooks saw, and can make closing fail to show it is all or nothing. */
function closingProbe(): Plugin & { seen: string[]; fail: boolean } {
  const probe = {
    name: 'closing-probe',
    seen: [] as string[],
    fail: false,
    zaakClosing({ zaak, changes }: { zaak: Record<string, unknown>; changes: Record<string, unknown> }) {
      probe.seen.push(`closing ${String(zaak.identificatie)} ${String(changes.einddatum)}`);
      if (probe.fail) throw new Error('archive derivation failed');
      changes.archiefnominatie = 'vernietigen';
    },
    zaakReopening({ zaak }: { zaak: Record<string, unknown> }) {
      probe.seen.push(`reopening ${String(zaak.identificatie)}`);
    },
  };
  return probe;
}

for (const backend of BACKENDS) {
  describe(`zrc-rules plugin on ${backend.name}`, function () {
    let world: ZgwWorld;
    let api: TestServer;
    let probe: ReturnType<typeof closingProbe>;
    // Holds a behandelaar's request after its validation, before its transaction.
    const gate = requestGate('validate', 'behandelaar');
    const tokens = new Map<string, string>();

    type Init = RequestInit & { json?: unknown };
    const as = async (clientId: string, path: string, init: Init = {}) => {
      tokens.set(clientId, tokens.get(clientId) ?? (await signZgwJwt(clientId, SECRET)));
      return api.request(path, { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${tokens.get(clientId)}` } });
    };
    const post = (path: string, json: unknown, clientId = 'admin') => as(clientId, path, { method: 'POST', json });
    const patch = (url: string, json: unknown, clientId = 'admin') => as(clientId, url, { method: 'PATCH', json });
    const get = (url: string) => as('admin', url);
    const created = async (path: string, json: unknown) => {
      const response = await post(path, json);
      assert.equal(response.status, 201, `${path}: ${response.text}`);
      return response.body;
    };
    const zaakInput = (overrides: Record<string, unknown> = {}) => ({
      zaaktype: world.zaaktype,
      bronorganisatie: RSIN,
      verantwoordelijkeOrganisatie: RSIN,
      startdatum: '2024-03-01',
      ...overrides,
    });
    const newZaak = (overrides: Record<string, unknown> = {}) => created('/zaken', zaakInput(overrides));
    const status = (zaak: any, statustype: string, datumStatusGezet = '2024-03-05T10:00:00+01:00', clientId = 'admin') =>
      post('/statussen', { zaak: zaak.url, statustype, datumStatusGezet }, clientId);
    const resultaat = (zaak: any) => created('/resultaten', { zaak: zaak.url, resultaattype: world.types.resultaat });
    const rol = (zaak: any, roltype = world.types.rolBehandelaar, clientId = 'admin') =>
      post('/rollen', { zaak: zaak.url, betrokkeneType: 'medewerker', roltype, roltoelichting: 'behandelt', betrokkene: 'https://medewerkers.test/1' }, clientId);
    const relate = (zaak: any, informatieobject: string) => post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject });

    /** A zaak with a resultaat and a document whose gebruiksrecht is known, closed by its end status. */
    async function closedZaak(): Promise<any> {
      const zaak = await newZaak();
      await resultaat(zaak);
      assert.equal((await relate(zaak, world.document({ indicatieGebruiksrecht: true }))).status, 201);
      assert.equal((await status(zaak, world.types.statusEnd)).status, 201);
      return (await get(zaak.url)).body;
    }

    before(async () => {
      world = await startZgwWorld();
      probe = closingProbe();
      const clients = Object.fromEntries(['admin', 'behandelaar', 'forceer', 'heropener'].map((id) => [id, SECRET]));
      api = await startRegistry(await backend.open(), {
        preset: 'standard',
        catalog: undefined,
        remote: { allowedHosts: world.allowedHosts },
        authorization: {
          clients,
          source: staticAuthorizations([
            app('admin', world.zaaktype, [], true),
            app('behandelaar', world.zaaktype, BASE_SCOPES),
            app('forceer', world.zaaktype, [...BASE_SCOPES, 'zaken.geforceerd-bijwerken']),
            app('heropener', world.zaaktype, [...BASE_SCOPES, 'zaken.heropenen']),
          ]),
        },
        plugins: [probe, gate],
      });
    });
    after(async () => {
      await api?.close();
      await world?.close();
    });
    beforeEach(() => {
      probe.seen = [];
      probe.fail = false;
    });

    describe('zrc-001: the zaaktype is fetched, must be a zaaktype and published', () => {
      const cases: [string, () => string, string][] = [
        ['404', () => `${world.catalog.origin}/catalogi/api/v1/zaaktypen/404`, 'bad-url'],
        ['a host that is not allowed', () => 'https://elders.test/catalogi/api/v1/zaaktypen/1', 'bad-url'],
        ['a statustype', () => world.types.statusStart, 'invalid-resource'],
        ['an empty object', () => world.catalog.put('/leeg', {}), 'invalid-resource'],
        ['a list', () => world.catalog.put('/lijst', [world.zaaktype]), 'invalid-resource'],
        // Fetched, but not the resource expected (vng-api-common's validator): not bad-url.
        ['an empty 200', () => world.catalog.putRaw('/leeg-antwoord', 'application/json', ''), 'invalid-resource'],
        ['an HTML page', () => world.catalog.putRaw('/pagina', 'text/html', '<html><body>Catalogus</body></html>'), 'invalid-resource'],
        ['a concept', () => world.zaaktypeConcept, 'not-published'],
      ];
      for (const [what, url, code] of cases) {
        it(`${what} → 400 zaaktype/${code}, on create and with vertrouwelijkheidaanduiding given`, async () => {
          for (const extra of [{}, { vertrouwelijkheidaanduiding: 'openbaar' }]) {
            const response = await post('/zaken', zaakInput({ zaaktype: url(), ...extra }));
            assert.equal(response.status, 400, response.text);
            assert.equal(response.headers.get('content-type'), 'application/problem+json');
            assert.deepEqual(first(response.body), ['zaaktype', code]);
          }
        });
      }

      it('fetches a zaaktype once per request however many rules read it', async () => {
        const zaaktype = world.catalog.put('/catalogi/api/v1/zaaktypen/eenmalig', {
          url: `${world.catalog.origin}/catalogi/api/v1/zaaktypen/eenmalig`,
          vertrouwelijkheidaanduiding: 'openbaar',
          concept: false,
          productenOfDiensten: world.products,
          statustypen: [],
        });
        const response = await post('/zaken', zaakInput({ zaaktype, productenOfDiensten: [world.products[0]] }));
        assert.equal(response.status, 201, response.text);
        assert.equal(world.catalog.gets(zaaktype), 1);
      });

      it('the zaaktype of a zaak cannot change (PUT and PATCH)', async () => {
        const zaak = await newZaak();
        const { url: _u, uuid: _id, ...body } = zaak;
        const put = await as('admin', zaak.url, { method: 'PUT', json: { ...body, zaaktype: world.zaaktypeOther } });
        assert.deepEqual([put.status, ...first(put.body)], [400, 'zaaktype', 'wijzigen-niet-toegelaten']);
        const same = await as('admin', zaak.url, { method: 'PUT', json: { ...body, omschrijving: 'bijgewerkt' } });
        assert.equal(same.status, 200, same.text);
      });
    });

    describe('zrc-002: identificatie', () => {
      it('is unique within the bronorganisatie on create', async () => {
        await newZaak({ identificatie: 'ZAAK-UNIEK-1' });
        const again = await post('/zaken', zaakInput({ identificatie: 'ZAAK-UNIEK-1' }));
        assert.deepEqual([again.status, ...first(again.body)], [400, 'identificatie', 'identificatie-niet-uniek']);
        assert.equal((await post('/zaken', zaakInput({ identificatie: 'ZAAK-UNIEK-1', bronorganisatie: RSIN_2 }))).status, 201);
      });

      it('and bronorganisatie cannot change on update', async () => {
        const zaak = await newZaak();
        const identificatie = await patch(zaak.url, { identificatie: 'ANDERS' });
        assert.deepEqual([identificatie.status, ...first(identificatie.body)], [400, 'identificatie', 'wijzigen-niet-toegelaten']);
        const bron = await patch(zaak.url, { bronorganisatie: RSIN_2 });
        assert.deepEqual([bron.status, ...first(bron.body)], [400, 'bronorganisatie', 'wijzigen-niet-toegelaten']);
        assert.equal((await patch(zaak.url, { identificatie: zaak.identificatie, omschrijving: 'zelfde' })).status, 200);
      });
    });

    describe('zrc-003 and zrc-004: zaakinformatieobjecten', () => {
      it('fetches the informatieobject: not 200 → bad-url, not an informatieobject → invalid-resource', async () => {
        const zaak = await newZaak();
        const missing = await relate(zaak, `${world.documents.origin}/documenten/api/v1/enkelvoudiginformatieobjecten/404`);
        assert.deepEqual([missing.status, ...first(missing.body)], [400, 'informatieobject', 'bad-url']);
        const wrong = await relate(zaak, world.communicatiekanaal);
        assert.deepEqual([wrong.status, ...first(wrong.body)], [400, 'informatieobject', 'invalid-resource']);
        const elsewhere = await relate(zaak, 'https://documenten.elders.test/documenten/api/v1/enkelvoudiginformatieobjecten/1');
        assert.deepEqual([elsewhere.status, ...first(elsewhere.body)], [400, 'informatieobject', 'bad-url']);
      });

      it('is hoort_bij with a server-set registratiedatum, and its zaak and informatieobject never change', async () => {
        const zaak = await newZaak();
        const other = await newZaak();
        const document = world.document();
        const zio = await relate(zaak, document);
        assert.equal(zio.status, 201, zio.text);
        assert.equal(zio.body.aardRelatieWeergave, 'Hoort bij, omgekeerd: kent');
        assert.ok(Math.abs(Date.parse(zio.body.registratiedatum) - Date.now()) < 60_000);
        const moved = await patch(zio.body.url, { zaak: other.url });
        assert.deepEqual([moved.status, ...first(moved.body)], [400, 'zaak', 'wijzigen-niet-toegelaten']);
        const swapped = await patch(zio.body.url, { informatieobject: world.document() });
        assert.deepEqual([swapped.status, ...first(swapped.body)], [400, 'informatieobject', 'wijzigen-niet-toegelaten']);
        const titled = await patch(zio.body.url, { titel: 'Aanvraagformulier' });
        assert.equal(titled.status, 200, titled.text);
        assert.equal(titled.body.informatieobject, document);
      });

      it('zrc-017: the document type must be one of the zaaktype (missing-zaaktype-informatieobjecttype-relation)', async () => {
        const zaak = await newZaak();
        const response = await relate(zaak, world.document({ informatieobjecttype: world.otherTypes.informatieobjecttype }));
        assert.deepEqual([response.status, ...first(response.body)], [400, 'nonFieldErrors', 'missing-zaaktype-informatieobjecttype-relation']);
      });
    });

    describe('zrc-010, 011, 013, 014, 015: zaak references and fields', () => {
      it('zrc-010: communicatiekanaal not 200 → bad-url, not a channel → invalid-resource, a channel → stored', async () => {
        const missing = await post('/zaken', zaakInput({ communicatiekanaal: `${world.other.origin}/referentielijsten/api/v1/communicatiekanalen/404` }));
        assert.deepEqual([missing.status, ...first(missing.body)], [400, 'communicatiekanaal', 'bad-url']);
        const wrong = await post('/zaken', zaakInput({ communicatiekanaal: world.zaaktype }));
        assert.deepEqual([wrong.status, ...first(wrong.body)], [400, 'communicatiekanaal', 'invalid-resource']);
        for (const [path, contentType, body] of [['/kanaal-leeg', 'application/json', ''], ['/kanaal-html', 'text/html', '<html></html>']]) {
          const notJson = await post('/zaken', zaakInput({ communicatiekanaal: world.other.putRaw(path, contentType, body) }));
          assert.deepEqual([notJson.status, ...first(notJson.body)], [400, 'communicatiekanaal', 'invalid-resource']);
        }
        const good = await post('/zaken', zaakInput({ communicatiekanaal: world.communicatiekanaal }));
        assert.equal(good.status, 201, good.text);
        assert.equal(good.body.communicatiekanaal, world.communicatiekanaal);
      });

      it('zrc-011: every relevanteAndereZaken url must resolve, named by its index', async () => {
        const local = await newZaak();
        const ok = await post('/zaken', zaakInput({ relevanteAndereZaken: [{ url: world.remoteZaak, aardRelatie: 'vervolg' }, { url: local.url, aardRelatie: 'onderwerp' }] }));
        assert.equal(ok.status, 201, ok.text);
        const broken = await post('/zaken', zaakInput({
          relevanteAndereZaken: [
            { url: world.remoteZaak, aardRelatie: 'vervolg' },
            { url: `${world.other.origin}/zaken/api/v1/zaken/404`, aardRelatie: 'vervolg' },
            { url: `${api.base}/zaken/00000000-0000-4000-8000-000000000000`, aardRelatie: 'bijdrage' },
          ],
        }));
        assert.equal(broken.status, 400);
        assert.deepEqual(codes(broken.body), [['relevanteAndereZaken.1.url', 'bad-url'], ['relevanteAndereZaken.2.url', 'bad-url']]);
        const notAZaak = await post('/zaken', zaakInput({ relevanteAndereZaken: [{ url: world.communicatiekanaal, aardRelatie: 'vervolg' }] }));
        assert.deepEqual(codes(notAZaak.body), [['relevanteAndereZaken.0.url', 'invalid-resource']]);
      });

      it('a cached look-up of one kind never passes for another kind', async () => {
        assert.equal((await post('/zaken', zaakInput({ relevanteAndereZaken: [{ url: world.remoteZaak, aardRelatie: 'vervolg' }] }))).status, 201);
        const asChannel = await post('/zaken', zaakInput({ communicatiekanaal: world.remoteZaak }));
        assert.deepEqual([asChannel.status, ...first(asChannel.body)], [400, 'communicatiekanaal', 'invalid-resource']);
        assert.equal((await post('/zaken', zaakInput({ communicatiekanaal: world.communicatiekanaal }))).status, 201);
        const asZaak = await post('/zaken', zaakInput({ relevanteAndereZaken: [{ url: world.communicatiekanaal, aardRelatie: 'vervolg' }] }));
        assert.deepEqual(codes(asZaak.body), [['relevanteAndereZaken.0.url', 'invalid-resource']]);
      });

      it('zrc-012: verlenging and opschorting are validated as groups when sent; null is omitted; answers are nested', async () => {
        const half = await post('/zaken', zaakInput({ verlenging: { reden: 'drukte' } }));
        assert.deepEqual([half.status, ...first(half.body)], [400, 'verlenging.duur', 'required']);
        const opschorting = await post('/zaken', zaakInput({ opschorting: { indicatie: true } }));
        assert.deepEqual([opschorting.status, ...first(opschorting.body)], [400, 'opschorting.reden', 'required']);
        const none = await post('/zaken', zaakInput({ verlenging: null, opschorting: null }));
        assert.equal(none.status, 201, none.text);
        assert.deepEqual(none.body.verlenging, { reden: '', duur: null });
        assert.deepEqual(none.body.opschorting, { indicatie: false, reden: '' });
      });

      it('zrc-013: a hoofdzaak is a zaak here, one level deep, never the zaak itself', async () => {
        const hoofdzaak = await newZaak();
        const notAZaak = await post('/zaken', zaakInput({ hoofdzaak: world.remoteZaak }));
        assert.deepEqual([notAZaak.status, ...first(notAZaak.body)], [400, 'hoofdzaak', 'no_match']);
        const deelzaak = await newZaak({ hoofdzaak: hoofdzaak.url });
        const deeper = await post('/zaken', zaakInput({ hoofdzaak: deelzaak.url }));
        assert.deepEqual([deeper.status, ...first(deeper.body)], [400, 'hoofdzaak', 'deelzaak-als-hoofdzaak']);
        for (const self of [hoofdzaak.url, hoofdzaak.url.replace(hoofdzaak.uuid, hoofdzaak.uuid.toUpperCase())]) {
          const itself = await patch(hoofdzaak.url, { hoofdzaak: self });
          assert.deepEqual([itself.status, ...first(itself.body)], [400, 'hoofdzaak', 'self-forbidden'], self);
        }
        const other = await newZaak();
        const withDeelzaken = await patch(hoofdzaak.url, { hoofdzaak: other.url });
        assert.deepEqual([withDeelzaken.status, ...first(withDeelzaken.body)], [400, 'hoofdzaak', 'deelzaak-als-hoofdzaak']);
      });

      it('zrc-014: betalingsindicatie nvt refuses a laatsteBetaaldatum, and switching to nvt clears it', async () => {
        const both = await post('/zaken', zaakInput({ betalingsindicatie: 'nvt', laatsteBetaaldatum: '2024-03-01T12:00:00Z' }));
        assert.deepEqual([both.status, ...first(both.body)], [400, 'laatsteBetaaldatum', 'betaling-nvt']);
        const paid = await newZaak({ betalingsindicatie: 'geheel', laatsteBetaaldatum: '2024-03-01T12:00:00Z' });
        assert.ok(paid.laatsteBetaaldatum);
        const switched = await patch(paid.url, { betalingsindicatie: 'nvt' });
        assert.equal(switched.status, 200, switched.text);
        assert.equal(switched.body.laatsteBetaaldatum, null);
        const later = await patch(paid.url, { laatsteBetaaldatum: '2024-04-01T12:00:00Z' });
        assert.deepEqual([later.status, ...first(later.body)], [400, 'laatsteBetaaldatum', 'betaling-nvt']);
      });

      it('zrc-015: productenOfDiensten must be offered by the zaaktype', async () => {
        const foreign = await post('/zaken', zaakInput({ productenOfDiensten: [world.products[0], 'https://producten.test/api/v1/producten/99'] }));
        assert.deepEqual([foreign.status, ...first(foreign.body)], [400, 'productenOfDiensten', 'invalid-products-services']);
        const zaak = await newZaak({ productenOfDiensten: [world.products[1]] });
        assert.deepEqual(zaak.productenOfDiensten, [world.products[1]]);
        const patched = await patch(zaak.url, { productenOfDiensten: ['https://producten.test/api/v1/producten/99'] });
        assert.deepEqual([patched.status, ...first(patched.body)], [400, 'productenOfDiensten', 'invalid-products-services']);
      });

      it('zrc-009: a sent vertrouwelijkheidaanduiding is stored as given, an omitted one is the zaaktype’s', async () => {
        assert.equal((await newZaak({ vertrouwelijkheidaanduiding: 'geheim' })).vertrouwelijkheidaanduiding, 'geheim');
        assert.equal((await newZaak()).vertrouwelijkheidaanduiding, 'openbaar');
      });

      it('answers every broken rule at once, in a fixed order', async () => {
        const response = await post('/zaken', zaakInput({
          betalingsindicatie: 'nvt',
          laatsteBetaaldatum: '2024-03-01T12:00:00Z',
          communicatiekanaal: world.zaaktype,
          productenOfDiensten: ['https://producten.test/api/v1/producten/99'],
        }));
        assert.deepEqual(codes(response.body), [
          ['productenOfDiensten', 'invalid-products-services'],
          ['communicatiekanaal', 'invalid-resource'],
          ['laatsteBetaaldatum', 'betaling-nvt'],
        ]);
      });
    });

    describe('zrc-016..020: types must belong to the zaak’s zaaktype', () => {
      it('status, resultaat, rol and zaakeigenschap of another zaaktype → nonFieldErrors/zaaktype-mismatch', async () => {
        const zaak = await newZaak();
        const attempts = [
          post('/statussen', { zaak: zaak.url, statustype: world.otherTypes.status, datumStatusGezet: '2024-03-02T10:00:00Z' }),
          post('/resultaten', { zaak: zaak.url, resultaattype: world.otherTypes.resultaat }),
          rol(zaak, world.otherTypes.rol),
          post(`/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: world.otherTypes.eigenschap, waarde: 'rood' }),
        ];
        for (const response of await Promise.all(attempts)) {
          assert.deepEqual([response.status, ...first(response.body)], [400, 'nonFieldErrors', 'zaaktype-mismatch'], response.text);
        }
        // Two broken rules: both reported, the zaaktype's first (as the reference orders them).
        const withoutBetrokkene = await post('/rollen', { zaak: zaak.url, betrokkeneType: 'medewerker', roltype: world.otherTypes.rol, roltoelichting: 'x' });
        assert.equal(withoutBetrokkene.status, 400);
        assert.deepEqual(
          withoutBetrokkene.body.invalidParams.map((p: any) => p.code),
          ['zaaktype-mismatch', 'invalid-betrokkene'],
        );
        const own = await Promise.all([
          post('/statussen', { zaak: zaak.url, statustype: world.types.statusStart, datumStatusGezet: '2024-03-02T10:00:00Z' }),
          post('/resultaten', { zaak: zaak.url, resultaattype: world.types.resultaat }),
          rol(zaak),
          post(`/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: world.types.eigenschap, waarde: 'AB-12-CD' }),
        ]);
        assert.deepEqual(own.map((r) => r.status), [201, 201, 201, 201]);
      });

      it('zrc-019 on PUT /rollen/{uuid}: a roltype of another zaaktype → zaaktype-mismatch, the rol unchanged', async () => {
        const zaak = await newZaak();
        const created = (await rol(zaak)).body;
        const body = { zaak: zaak.url, betrokkeneType: 'medewerker', roltoelichting: 'behandelt', betrokkene: 'https://medewerkers.test/2' };
        const refused = await as('admin', created.url, { method: 'PUT', json: { ...body, roltype: world.otherTypes.rol } });
        assert.deepEqual([refused.status, ...first(refused.body)], [400, 'nonFieldErrors', 'zaaktype-mismatch'], refused.text);
        assert.deepEqual((await get(created.url)).body, created);
        const replaced = await as('admin', created.url, { method: 'PUT', json: { ...body, roltype: world.types.rolBehandelaar } });
        assert.equal(replaced.status, 200, replaced.text);
        assert.equal(replaced.body.betrokkene, 'https://medewerkers.test/2');
      });

      it('a type that cannot be fetched → bad-url on its field; changing a resultaat to a foreign type → mismatch', async () => {
        const zaak = await newZaak();
        const response = await post('/statussen', { zaak: zaak.url, statustype: `${world.catalog.origin}/catalogi/api/v1/statustypen/404`, datumStatusGezet: '2024-03-02T10:00:00Z' });
        assert.deepEqual([response.status, ...first(response.body)], [400, 'statustype', 'bad-url']);
        const result = await resultaat(zaak);
        const changed = await patch(result.url, { resultaattype: world.otherTypes.resultaat });
        assert.deepEqual([changed.status, ...first(changed.body)], [400, 'nonFieldErrors', 'zaaktype-mismatch']);
      });
    });

    describe('a status date', () => {
      it('not before the zaak’s startdatum, by the date as the client wrote it (datumStatusGezet / before-startdatum)', async () => {
        const zaak = await newZaak({ startdatum: '2024-03-01' });
        for (const early of ['2024-02-29T10:00:00Z', '2024-02-29T23:30:00-01:00']) {
          const response = await status(zaak, world.types.statusStart, early);
          assert.deepEqual([response.status, ...codes(response.body)], [400, ['datumStatusGezet', 'before-startdatum']], early);
        }
        assert.equal((await get(`/statussen?zaak=${encodeURIComponent(zaak.url)}`)).body.count, 0, 'nothing stored');
        // The client's own date counts: 1 March at 00:30 in +01:00 is still 29 February in UTC.
        for (const onTheDay of ['2024-03-01T00:30:00+01:00', '2024-03-01T10:00:00Z']) {
          assert.equal((await status(zaak, world.types.statusStart, onTheDay)).status, 201, onTheDay);
        }
      });

      it('is checked again on the zaak as locked: a startdatum moved meanwhile is seen', async () => {
        const zaak = await newZaak({ startdatum: '2024-03-01' });
        const { reached, release } = gate.hold();
        const pending = status(zaak, world.types.statusStart, '2024-03-02T10:00:00Z', 'behandelaar');
        await reached;
        const moved = await patch(zaak.url, { startdatum: '2024-03-10' });
        assert.equal(moved.status, 200, moved.text);
        release();
        const response = await pending;
        assert.deepEqual([response.status, ...codes(response.body)], [400, ['datumStatusGezet', 'before-startdatum']], response.text);
        assert.equal((await get(`/statussen?zaak=${encodeURIComponent(zaak.url)}`)).body.count, 0);
      });

      it('is reported with the other broken rules of the status at once', async () => {
        const zaak = await newZaak({ startdatum: '2024-03-01' });
        const response = await post('/statussen', { zaak: zaak.url, statustype: world.otherTypes.status, datumStatusGezet: '2024-02-01T10:00:00Z' });
        assert.deepEqual([response.status, ...codes(response.body)], [400, ['datumStatusGezet', 'before-startdatum'], ['nonFieldErrors', 'zaaktype-mismatch']]);
      });
    });

    describe('closing', () => {
      it('needs a resultaat (resultaat-does-not-exist)', async () => {
        const zaak = await newZaak();
        const response = await status(zaak, world.types.statusEnd);
        assert.deepEqual([response.status, ...first(response.body)], [400, 'nonFieldErrors', 'resultaat-does-not-exist']);
        const after = (await get(zaak.url)).body;
        assert.equal(after.status, null);
        assert.equal(after.einddatum, null);
      });

      it('needs indicatieGebruiksrecht on every document (indicatiegebruiksrecht-unset), fetched fresh', async () => {
        const zaak = await newZaak();
        await resultaat(zaak);
        const document = world.document({ indicatieGebruiksrecht: null });
        assert.equal((await relate(zaak, document)).status, 201);
        const refused = await status(zaak, world.types.statusEnd);
        assert.deepEqual([refused.status, ...first(refused.body)], [400, 'nonFieldErrors', 'indicatiegebruiksrecht-unset']);
        // The document is updated in the Documenten API: the next attempt sees it.
        const path = new URL(document).pathname;
        world.documents.resources.set(path, { ...(world.documents.resources.get(path) as object), indicatieGebruiksrecht: true });
        const before = world.documents.gets(document);
        const closed = await status(zaak, world.types.statusEnd);
        assert.equal(closed.status, 201, closed.text);
        assert.equal(world.documents.gets(document) - before, 1, 'one fetch per document per request');
      });

      it('a document the Documenten API no longer serves: 502 bad_gateway, the zaak stays open', async () => {
        const zaak = await newZaak();
        await resultaat(zaak);
        const document = world.document({ indicatieGebruiksrecht: true });
        assert.equal((await relate(zaak, document)).status, 201);
        world.documents.resources.delete(new URL(document).pathname);
        const response = await status(zaak, world.types.statusEnd);
        assert.deepEqual([response.status, response.body.code], [502, 'bad_gateway'], response.text);
        assert.equal((await get(zaak.url)).body.einddatum, null);
      });

      it('by the highest volgnummer: sets einddatum (the date as the client gave it) and runs the zaakClosing hooks', async () => {
        const zaak = await newZaak({ identificatie: 'ZAAK-SLUITEN-1' });
        await resultaat(zaak);
        assert.equal((await status(zaak, world.types.statusStart)).status, 201);
        assert.equal((await status(zaak, world.types.statusMiddle, '2024-03-04T10:00:00+01:00')).status, 201);
        assert.equal((await get(zaak.url)).body.einddatum, null, 'a middle status does not close');
        const end = await status(zaak, world.types.statusEnd, '2024-03-05T23:30:00+01:00');
        assert.equal(end.status, 201, end.text);
        const closed = (await get(zaak.url)).body;
        assert.equal(closed.einddatum, '2024-03-05');
        assert.equal(closed.status, end.body.url);
        assert.equal(closed.archiefnominatie, 'vernietigen', 'a zaakClosing hook added it');
        assert.deepEqual(probe.seen, ['closing ZAAK-SLUITEN-1 2024-03-05']);
      });

      it('is all or nothing: a failing zaakClosing hook leaves no status and an open zaak', async () => {
        const zaak = await newZaak();
        await resultaat(zaak);
        probe.fail = true;
        const response = await status(zaak, world.types.statusEnd);
        assert.equal(response.status, 500);
        const after = (await get(zaak.url)).body;
        assert.equal(after.einddatum, null);
        assert.equal(after.status, null);
        assert.equal((await get(`/statussen?zaak=${encodeURIComponent(zaak.url)}`)).body.count, 0);
      });
    });

    describe('a closed zaak', () => {
      it('refuses changes to itself and its records without zaken.geforceerd-bijwerken (403)', async () => {
        const zaak = await closedZaak();
        const rolBefore = await rol(zaak); // admin has every scope
        assert.equal(rolBefore.status, 201);
        const rolChange = { zaak: zaak.url, betrokkeneType: 'medewerker', roltype: world.types.rolBehandelaar, roltoelichting: 'gecorrigeerd', betrokkene: 'https://medewerkers.test/1' };
        const attempts = await Promise.all([
          patch(zaak.url, { omschrijving: 'nog even' }, 'behandelaar'),
          rol(zaak, world.types.rolBehandelaar, 'behandelaar'),
          as('behandelaar', rolBefore.body.url, { method: 'PUT', json: rolChange }),
          as('behandelaar', rolBefore.body.url, { method: 'DELETE' }),
          post('/zaakobjecten', { zaak: zaak.url, objectType: 'pand', object: 'https://bag.test/panden/1' }, 'behandelaar'),
          post('/klantcontacten', { zaak: zaak.url, datumtijd: '2024-03-01T09:00:00Z' }, 'behandelaar'),
          post(`/zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: world.types.eigenschap, waarde: 'x' }, 'behandelaar'),
          patch(zaak.resultaat, { toelichting: 'anders' }, 'behandelaar'),
          status(zaak, world.types.statusEnd, '2024-03-06T10:00:00+01:00', 'behandelaar'),
          post(`/zaken/${zaak.uuid}/besluiten`, { besluit: 'https://besluiten.test/api/v1/besluiten/1' }, 'behandelaar'),
          post('/zaakinformatieobjecten', { zaak: zaak.url, informatieobject: world.document({ indicatieGebruiksrecht: true }) }, 'behandelaar'),
          patch(zaak.zaakinformatieobjecten[0], { titel: 'anders' }, 'behandelaar'),
        ]);
        for (const response of attempts) assert.deepEqual([response.status, response.body?.code], [403, 'permission_denied'], response.text);
        assert.equal((await as('behandelaar', zaak.url)).status, 200, 'reading stays allowed');
        const forced = await patch(zaak.url, { omschrijving: 'correctie' }, 'forceer');
        assert.equal(forced.status, 200, forced.text);
        assert.equal((await rol(zaak, world.types.rolBehandelaar, 'forceer')).status, 201);
        const forcedRol = await as('forceer', rolBefore.body.url, { method: 'PUT', json: rolChange });
        assert.deepEqual([forcedRol.status, forcedRol.body.roltoelichting], [200, 'gecorrigeerd'], forcedRol.text);
        const corrected = await status(zaak, world.types.statusEnd, '2024-03-08T10:00:00+01:00', 'forceer');
        assert.equal(corrected.status, 201, corrected.text);
        assert.equal((await get(zaak.url)).body.einddatum, '2024-03-08', 'a corrected end status moves einddatum');
      });

      it('guards its notes too: written, changed and removed only with zaken.geforceerd-bijwerken beside zaken.bijwerken', async () => {
        const zaak = await closedZaak();
        const input = { gerelateerdAan: zaak.url, onderwerp: 'Na afsluiten', tekst: 'Correctie nodig.' };
        const existing = await post('/zaaknotities', input); // admin has every scope
        assert.equal(existing.status, 201, existing.text);
        const trail = (await get(`/zaken/${zaak.uuid}/audittrail`)).body.length;
        const attempts = [
          await post('/zaaknotities', input, 'behandelaar'),
          await patch(existing.body.url, { tekst: 'Anders.' }, 'behandelaar'),
          await as('behandelaar', existing.body.url, { method: 'PUT', json: { ...input, tekst: 'Anders.' } }),
          await as('behandelaar', existing.body.url, { method: 'DELETE' }),
        ];
        for (const response of attempts) assert.deepEqual([response.status, response.body?.code], [403, 'permission_denied'], response.text);
        assert.equal((await get(`/zaken/${zaak.uuid}/audittrail`)).body.length, trail, 'nothing written');
        assert.equal((await as('behandelaar', existing.body.url)).status, 200, 'reading stays allowed');
        assert.equal((await post('/zaaknotities', input, 'forceer')).status, 201);
        const forced = await patch(existing.body.url, { tekst: 'Gecorrigeerd.' }, 'forceer');
        assert.equal(forced.status, 200, forced.text);
        assert.equal((await as('forceer', existing.body.url, { method: 'DELETE' })).status, 204);
      });

      it('answers a validation error before its 403, as the reference orders them: a second resultaat is 400 unique', async () => {
        const zaak = await closedZaak();
        const second = await post('/resultaten', { zaak: zaak.url, resultaattype: world.types.resultaat }, 'behandelaar');
        assert.deepEqual([second.status, ...first(second.body)], [400, 'zaak', 'unique'], second.text);
        const valid = await patch(zaak.resultaat, { toelichting: 'anders' }, 'behandelaar');
        assert.deepEqual([valid.status, valid.body?.code], [403, 'permission_denied'], 'a valid change still meets the closed zaak');
      });

      it('is seen by a request that was authorized while the zaak was still open', async () => {
        const zaak = await newZaak();
        await resultaat(zaak);
        const results = await Promise.all([0, 1].map(() => status(zaak, world.types.statusEnd, '2024-03-05T10:00:00+01:00', 'behandelaar')));
        assert.deepEqual(results.map((r) => r.status).sort(), [201, 403], results.map((r) => r.text).join('\n'));
        assert.equal((await get(`/statussen?zaak=${encodeURIComponent(zaak.url)}`)).body.count, 1);
      });

      it('reopens by a non-end status only with zaken.heropenen, clearing einddatum and the archive fields', async () => {
        const zaak = await closedZaak();
        assert.equal(zaak.archiefnominatie, 'vernietigen');
        for (const clientId of ['behandelaar', 'forceer']) {
          const refused = await status(zaak, world.types.statusMiddle, '2024-03-07T10:00:00+01:00', clientId);
          assert.deepEqual([refused.status, refused.body.code], [403, 'permission_denied'], clientId);
        }
        const reopened = await status(zaak, world.types.statusMiddle, '2024-03-07T10:00:00+01:00', 'heropener');
        assert.equal(reopened.status, 201, reopened.text);
        const open = (await get(zaak.url)).body;
        assert.deepEqual([open.einddatum, open.archiefnominatie, open.archiefactiedatum], [null, null, null]);
        assert.deepEqual(probe.seen.at(-1), `reopening ${zaak.identificatie}`);
        assert.equal((await patch(zaak.url, { omschrijving: 'weer open' }, 'behandelaar')).status, 200);
      });

      it('can still be destroyed with zaken.verwijderen', async () => {
        const zaak = await closedZaak();
        assert.equal((await as('behandelaar', zaak.url, { method: 'DELETE' })).status, 204);
      });
    });

    describe('under concurrency', () => {
      it('two zaken made each other’s hoofdzaak at once: one succeeds, never a cycle', async () => {
        const [a, b] = [await newZaak(), await newZaak()];
        const results = await Promise.all([patch(a.url, { hoofdzaak: b.url }), patch(b.url, { hoofdzaak: a.url })]);
        assert.deepEqual(results.map((r) => r.status).sort(), [200, 400], results.map((r) => r.text).join('\n'));
        const [nowA, nowB] = [(await get(a.url)).body, (await get(b.url)).body];
        assert.ok(!(nowA.hoofdzaak && nowB.hoofdzaak), 'no cycle');
      });

      it('a besluit linked while the zaak is destroyed: never both', async () => {
        for (let round = 0; round < 3; round++) {
          const zaak = await newZaak();
          const [destroyed, linked] = await Promise.all([
            as('admin', zaak.url, { method: 'DELETE' }),
            post(`/zaken/${zaak.uuid}/besluiten`, { besluit: 'https://besluiten.test/api/v1/besluiten/9' }),
          ]);
          assert.ok(!(destroyed.status === 204 && linked.status === 201), `${destroyed.text} / ${linked.text}`);
          assert.ok([204, 400].includes(destroyed.status) && [201, 404].includes(linked.status), `${destroyed.status} ${linked.status}`);
        }
      });
    });

    describe('archiefstatus', () => {
      it('leaving nog_te_archiveren needs archiefnominatie, archiefactiedatum and archived documents', async () => {
        const zaak = await newZaak();
        const document = world.document({ status: 'definitief' });
        assert.equal((await relate(zaak, document)).status, 201);
        const bare = await patch(zaak.url, { archiefstatus: 'gearchiveerd' });
        assert.equal(bare.status, 400);
        assert.deepEqual(codes(bare.body), [
          ['archiefstatus', 'documents-not-archived'],
          ['archiefnominatie', 'archiefnominatie-not-set'],
          ['archiefactiedatum', 'archiefactiedatum-not-set'],
        ]);
        const withValues = await patch(zaak.url, { archiefstatus: 'gearchiveerd', archiefnominatie: 'blijvend_bewaren', archiefactiedatum: '2030-01-01' });
        assert.deepEqual(codes(withValues.body), [['archiefstatus', 'documents-not-archived']]);
        const path = new URL(document).pathname;
        world.documents.resources.set(path, { ...(world.documents.resources.get(path) as object), status: 'gearchiveerd' });
        const archived = await patch(zaak.url, { archiefstatus: 'gearchiveerd', archiefnominatie: 'blijvend_bewaren', archiefactiedatum: '2030-01-01' });
        assert.equal(archived.status, 200, archived.text);
        assert.equal(archived.body.archiefstatus, 'gearchiveerd');
        const onCreate = await post('/zaken', zaakInput({ archiefstatus: 'overgedragen' }));
        assert.deepEqual(codes(onCreate.body), [['archiefnominatie', 'archiefnominatie-not-set'], ['archiefactiedatum', 'archiefactiedatum-not-set']]);
      });
    });

    describe('destroying a zaak (zrc-023)', () => {
      // Not zaakbesluit: a zaak with besluiten is not destroyed (next test).
      const TABLES = ['status', 'resultaat', 'rol', 'zaakobject', 'zaakinformatieobject', 'zaakeigenschap', 'klantcontact', 'zaakcontactmoment', 'zaakverzoek', 'audittrail'];
      const rowsOf = async (zaakUuids: string[]) => {
        const knex = api.registry.services.storage.knex;
        const counts: Record<string, number> = {};
        for (const table of TABLES) {
          const [{ count }] = await knex(table).join('zaak', 'zaak.id', `${table}.zaak_id`).whereIn('zaak.uuid', zaakUuids).count({ count: '*' });
          counts[table] = Number(count);
        }
        const [{ count }] = await knex('zaak').whereIn('uuid', zaakUuids).count({ count: '*' });
        return { zaak: Number(count), ...counts };
      };

      it('removes the zaak, its deelzaken and every record of them in one go, no soft delete', async () => {
        const zaak = await newZaak();
        const deelzaak = await newZaak({ hoofdzaak: zaak.url });
        for (const z of [zaak, deelzaak]) {
          const ref = { zaak: z.url };
          await resultaat(z);
          assert.equal((await status(z, world.types.statusStart)).status, 201);
          assert.equal((await rol(z)).status, 201);
          await created('/zaakobjecten', { ...ref, objectType: 'pand', object: 'https://bag.test/panden/1' });
          assert.equal((await relate(z, world.document())).status, 201);
          await created(`/zaken/${z.uuid}/zaakeigenschappen`, { ...ref, eigenschap: world.types.eigenschap, waarde: 'x' });
          await created('/klantcontacten', { ...ref, datumtijd: '2024-03-01T09:00:00Z' });
          // Hosts the registry may reach: registry-sync (in the standard preset) refuses links it cannot mirror.
          await created('/zaakcontactmomenten', { ...ref, contactmoment: `${world.other.origin}/contactmomenten/1` });
          await created('/zaakverzoeken', { ...ref, verzoek: `${world.other.origin}/verzoeken/1` });
        }
        const before = await rowsOf([zaak.uuid, deelzaak.uuid]);
        assert.ok(Object.values(before).every((n) => n > 0), JSON.stringify(before));
        assert.equal((await as('admin', zaak.url, { method: 'DELETE' })).status, 204);
        const after = await rowsOf([zaak.uuid, deelzaak.uuid]);
        assert.ok(Object.values(after).every((n) => n === 0), JSON.stringify(after));
        assert.equal((await get(deelzaak.url)).status, 404);
      });

      it('a deelzaak can go alone; a zaak with besluiten (its own or a deelzaak’s) cannot (related-besluiten)', async () => {
        const zaak = await newZaak();
        const deelzaak = await newZaak({ hoofdzaak: zaak.url });
        const alone = await newZaak({ hoofdzaak: zaak.url });
        assert.equal((await as('admin', alone.url, { method: 'DELETE' })).status, 204);
        assert.equal((await get(zaak.url)).status, 200);
        await created(`/zaken/${deelzaak.uuid}/besluiten`, { besluit: 'https://besluiten.test/api/v1/besluiten/7' });
        const refused = await as('admin', zaak.url, { method: 'DELETE' });
        assert.deepEqual([refused.status, ...first(refused.body)], [400, 'nonFieldErrors', 'related-besluiten']);
        assert.equal((await get(deelzaak.url)).status, 200, 'nothing removed');
      });
    });
  });
}

describe('zrc-rules disabled (preset none)', () => {
  it('the core stores schema-valid data without the business rules', async () => {
    const world = await startZgwWorld();
    const api = await startRegistry(await BACKENDS[0].open(), { preset: 'none', catalog: undefined, remote: { allowedHosts: world.allowedHosts } });
    try {
      assert.deepEqual(api.registry.plugins.map((p) => p.name), ['development-mode']);
      const zaak = await api.request('/zaken', {
        method: 'POST',
        json: { zaaktype: world.zaaktypeConcept, bronorganisatie: RSIN, verantwoordelijkeOrganisatie: RSIN, startdatum: '2024-03-01', productenOfDiensten: ['https://elders.test/p'] },
      });
      assert.equal(zaak.status, 201, 'concept zaaktype and foreign products: rules that are the plugin’s');
      const invalid = await api.request('/zaken', { method: 'POST', json: { zaaktype: world.zaaktype, bronorganisatie: 'geen-rsin', startdatum: 'gisteren' } });
      assert.equal(invalid.status, 400, 'the schema still applies');
      const end = await api.request('/statussen', { method: 'POST', json: { zaak: zaak.body.url, statustype: world.types.statusEnd, datumStatusGezet: '2024-02-05T10:00:00Z' } });
      assert.equal(end.status, 201, 'a status before the startdatum too: that rule is the plugin’s');
      assert.equal((await api.request(zaak.body.url)).body.einddatum, null, 'nothing closes a zaak without the plugin');
    } finally {
      await api.close();
      await world.close();
    }
  });

  it('createRegistry() brings zrc-rules by default; a plugin of the same name replaces it', async () => {
    const standard = await startRegistry(await BACKENDS[0].open(), { preset: undefined });
    const replaced = await startRegistry(await BACKENDS[0].open(), { preset: undefined, plugins: [{ name: 'zrc-rules' }] });
    try {
      assert.deepEqual(standard.registry.plugins.map((p) => p.name), ['zrc-rules', 'archive', 'registry-sync', 'caching', 'expand', 'geo-crs', 'development-mode']);
      assert.equal(replaced.registry.plugins.find((p) => p.name === 'zrc-rules')?.validate, undefined);
    } finally {
      await standard.close();
      await replaced.close();
    }
  });
});
