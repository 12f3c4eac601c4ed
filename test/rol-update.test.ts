import assert from 'node:assert/strict';
import { caching, notifications, signZgwJwt, staticAuthorizations, type Applicatie } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { eventually } from './helpers/eventually.js';
import { RSIN, TYPES, ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { startNotificatiesApi, type NotificatiesApiServer } from './helpers/zgw-servers.js';

/**
 * PUT /rollen/{uuid} (Zaken API 1.8.0, rol_update) on the core, with ETags (caching) and notifications
 * to a real Notificaties API on 127.0.0.1, called by applications with and without the scopes.
 */

const SECRET = 'rol-update-secret-of-at-least-32-bytes';
const FAST_OUTBOX = { backoffBaseMs: 20, backoffMaxMs: 100, timeoutMs: 500, pollIntervalMs: 50, maxAttempts: 4, leaseMs: 2000 };
const params = (body: any) => body.invalidParams.map((p: any) => [p.name, p.code]);

function app(clientId: string, zaaktype: string, scopes: string[], all = false): Applicatie {
  return {
    clientIds: [clientId],
    label: clientId,
    heeftAlleAutorisaties: all,
    autorisaties: [{ component: 'zrc', scopes, zaaktype, maxVertrouwelijkheidaanduiding: 'zeer_geheim' }],
  };
}

for (const backend of BACKENDS) {
  describe(`PUT /rollen/{uuid} on ${backend.name}`, () => {
    let api: TestServer;
    let nrc: NotificatiesApiServer;
    let zaak: any;
    let rol: any;
    const tokens = new Map<string, string>();

    type Init = RequestInit & { json?: unknown };
    const as = async (clientId: string, path: string, init: Init = {}) => {
      tokens.set(clientId, tokens.get(clientId) ?? (await signZgwJwt(clientId, SECRET)));
      return api.request(path, { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${tokens.get(clientId)}` } });
    };
    const get = (url: string, headers: Record<string, string> = {}) => as('admin', url, { headers });
    const post = (path: string, json: unknown) => as('admin', path, { method: 'POST', json });
    const put = (url: string, json: unknown, clientId = 'admin') => as(clientId, url, { method: 'PUT', json });
    const settled = () => eventually(async () => assert.equal((await api.registry.outbox.counts()).pending, 0));
    const trail = async () => (await get(`/zaken/${zaak.uuid}/audittrail`)).body.map((a: any) => [a.resource, a.actie, a.resultaat]);
    const rolNotifications = () => nrc.notificaties.filter((n) => n.resource === 'rol').map((n) => [n.actie, n.resourceUrl]);

    const initial = () => ({
      zaak: zaak.url,
      betrokkeneType: 'natuurlijk_persoon',
      roltype: TYPES.roltypeBehandelaar,
      roltoelichting: 'behandelt',
      afwijkendeNaamBetrokkene: 'Jan',
      indicatieMachtiging: 'gemachtigde',
      contactpersoonRol: { emailadres: 'jan@example.nl', naam: 'Jan Jansen' },
      betrokkeneIdentificatie: { inpBsn: '111222333', geslachtsnaam: 'Jansen' },
    });
    const replacement = (overrides: Record<string, unknown> = {}) => ({
      zaak: zaak.url,
      betrokkeneType: 'medewerker',
      roltype: TYPES.roltypeInitiator,
      roltoelichting: 'meldt',
      betrokkene: 'https://medewerkers.test/api/v1/medewerkers/m1',
      betrokkeneIdentificatie: { identificatie: 'm1', achternaam: 'De Vries' },
      ...overrides,
    });

    before(async () => {
      nrc = await startNotificatiesApi();
      const clients = Object.fromEntries(['admin', 'lezer', 'bijwerker', 'elders'].map((id) => [id, SECRET]));
      api = await startRegistry(await backend.open(), {
        authorization: {
          clients,
          source: staticAuthorizations([
            app('admin', ZAAKTYPE, [], true),
            app('lezer', ZAAKTYPE, ['zaken.lezen']),
            app('bijwerker', ZAAKTYPE, ['zaken.lezen', 'zaken.bijwerken']),
            app('elders', ZAAKTYPE_GEHEIM, ['zaken.lezen', 'zaken.bijwerken', 'zaken.geforceerd-bijwerken']),
          ]),
        },
        plugins: [caching(), notifications({ url: nrc.url })],
        outbox: FAST_OUTBOX,
      });
    });
    after(async () => {
      await api?.close();
      await nrc?.close();
    });
    beforeEach(async () => {
      await settled();
      await api.registry.services.storage.knex('zaak').delete();
      nrc.notificaties.length = 0;
      zaak = (await post('/zaken', zaakInput())).body;
      const created = await post('/rollen', initial());
      assert.equal(created.status, 201, created.text);
      rol = created.body;
    });

    it('replaces the whole rol: new fields stored, omitted ones cleared, omschrijving from the new roltype', async () => {
      const status = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z', gezetdoor: rol.url });
      assert.equal(status.status, 201, status.text);

      const response = await put(rol.url, replacement());
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, {
        url: rol.url,
        uuid: rol.uuid,
        zaak: zaak.url,
        betrokkene: 'https://medewerkers.test/api/v1/medewerkers/m1',
        betrokkeneType: 'medewerker',
        afwijkendeNaamBetrokkene: '',
        roltype: TYPES.roltypeInitiator,
        omschrijving: 'Aanvrager',
        omschrijvingGeneriek: 'initiator',
        roltoelichting: 'meldt',
        registratiedatum: rol.registratiedatum,
        indicatieMachtiging: '',
        contactpersoonRol: null,
        statussen: [status.body.url],
        betrokkeneIdentificatie: { identificatie: 'm1', achternaam: 'De Vries' },
      });
      assert.deepEqual((await get(rol.url)).body, response.body);
      assert.deepEqual((await get(zaak.url)).body.rollen, [rol.url]);
      assert.equal((await get(status.body.url)).body.gezetdoor, rol.url);

      // The stored identification is the new one, for the filters too.
      const filter = (query: string) => get(`/rollen?${query}`).then((r) => r.body.count);
      assert.equal(await filter('betrokkeneIdentificatie__medewerker__identificatie=m1'), 1);
      assert.equal(await filter('betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=111222333'), 0);
      assert.equal((await get(`/zaken?rol__betrokkeneIdentificatie__medewerker__identificatie=m1`)).body.count, 1);
    });

    it('takes back what it serves: a rol GET then PUT unchanged', async () => {
      const fetched = (await get(rol.url)).body;
      const response = await put(rol.url, fetched);
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body, fetched);
    });

    it('changes the ETag, is audited and published as update on kanaal zaken', async () => {
      const before = await get(rol.url);
      const etag = before.headers.get('etag')!;
      assert.ok(etag);
      assert.equal((await get(rol.url, { 'if-none-match': etag })).status, 304);

      const response = await as('admin', rol.url, { method: 'PUT', json: replacement(), headers: { 'x-audit-toelichting': 'Andere melder' } });
      assert.equal(response.status, 200, response.text);
      const after = await get(rol.url, { 'if-none-match': etag });
      assert.equal(after.status, 200, 'the old tag no longer matches');
      assert.notEqual(after.headers.get('etag'), etag);

      const entries = (await get(`/zaken/${zaak.uuid}/audittrail`)).body;
      const update = entries.at(-1);
      assert.deepEqual([update.resource, update.actie, update.resultaat, update.resourceUrl], ['rol', 'update', 200, rol.url]);
      assert.equal(update.toelichting, 'Andere melder');
      assert.equal(update.hoofdObject, zaak.url);
      assert.deepEqual(update.wijzigingen.oud, before.body);
      assert.deepEqual(update.wijzigingen.nieuw, response.body);

      await eventually(() => assert.deepEqual(rolNotifications(), [['create', rol.url], ['update', rol.url]]));
      const notification = nrc.notificaties.at(-1)!;
      assert.equal(notification.kanaal, 'zaken');
      assert.equal(notification.hoofdObject, zaak.url);
      assert.deepEqual(notification.kenmerken, { bronorganisatie: RSIN, zaaktype: ZAAKTYPE, vertrouwelijkheidaanduiding: 'openbaar' });
    });

    describe('refuses an invalid rol with 400, changing nothing', () => {
      const refusals: [string, () => Record<string, unknown>, [string, string][]][] = [
        [
          'an identification that does not fit its betrokkeneType',
          () => replacement({ betrokkeneType: 'natuurlijk_persoon', betrokkeneIdentificatie: { inpBsn: '1112223334' } }),
          [['betrokkeneIdentificatie.inpBsn', 'max_length']],
        ],
        ['no betrokkene and no betrokkeneIdentificatie (the old one is not kept)', () => replacement({ betrokkene: undefined, betrokkeneIdentificatie: undefined }), [['nonFieldErrors', 'invalid-betrokkene']]],
        ['a roltype the catalog does not know', () => replacement({ roltype: `${TYPES.roltypeBehandelaar.slice(0, -36)}99999999-9999-4999-8999-999999999999` }), [['roltype', 'bad-url']]],
        ['an unknown betrokkeneType', () => replacement({ betrokkeneType: 'robot' }), [['betrokkeneType', 'invalid_choice']]],
      ];
      for (const [what, body, expected] of refusals) {
        it(what, async () => {
          const response = await put(rol.url, body());
          assert.equal(response.status, 400, response.text);
          assert.equal(response.headers.get('content-type'), 'application/problem+json');
          assert.deepEqual(params(response.body), expected);
          assert.deepEqual((await get(rol.url)).body, rol);
        });
      }

      it('without the fields a rol requires', async () => {
        const response = await put(rol.url, {});
        assert.equal(response.status, 400);
        assert.deepEqual(params(response.body).sort(), [['betrokkeneType', 'required'], ['roltoelichting', 'required'], ['roltype', 'required'], ['zaak', 'required']]);
        assert.deepEqual((await get(rol.url)).body, rol);
      });

      it('naming another zaak: a rol stays with its zaak (zaak / wijzigen-niet-toegelaten)', async () => {
        const other = (await post('/zaken', zaakInput())).body;
        const response = await put(rol.url, replacement({ zaak: other.url, roltype: TYPES.roltypeBehandelaar }));
        assert.equal(response.status, 400, response.text);
        assert.deepEqual(params(response.body), [['zaak', 'wijzigen-niet-toegelaten']]);
        assert.deepEqual((await get(rol.url)).body, rol);
        assert.deepEqual((await get(other.url)).body.rollen, []);
        // A zaak URL that is none here stays the reference's own error.
        assert.deepEqual(params((await put(rol.url, replacement({ zaak: 'https://elders.test/zaken/1' }))).body), [['zaak', 'no_match']]);
      });

      afterEach(async () => {
        assert.deepEqual(await trail(), [['zaak', 'create', 201], ['rol', 'create', 201]], 'no audit row for a refused change');
        await settled();
        assert.deepEqual(rolNotifications(), [['create', rol.url]], 'nothing published for a refused change');
      });
    });

    it('refuses a second initiator of the zaak (roltype / max-occurences), changing nothing', async () => {
      const initiator = await post('/rollen', replacement());
      assert.equal(initiator.status, 201, initiator.text);
      const response = await put(rol.url, replacement({ betrokkeneIdentificatie: { identificatie: 'm2' } }));
      assert.equal(response.status, 400, response.text);
      assert.deepEqual(params(response.body), [['roltype', 'max-occurences']]);
      assert.deepEqual((await get(rol.url)).body, rol);
      assert.deepEqual(await trail(), [['zaak', 'create', 201], ['rol', 'create', 201], ['rol', 'create', 201]]);
    });

    describe('authorization (zrc-006)', () => {
      it('needs zaken.bijwerken (or geforceerd-bijwerken) for the rol’s zaaktype: 403 otherwise, unchanged', async () => {
        for (const clientId of ['lezer', 'elders']) {
          const response = await put(rol.url, replacement(), clientId);
          assert.deepEqual([response.status, response.body.code], [403, 'permission_denied'], `${clientId}: ${response.text}`);
        }
        assert.deepEqual((await get(rol.url)).body, rol);
        const allowed = await put(rol.url, replacement(), 'bijwerker');
        assert.equal(allowed.status, 200, allowed.text);
        assert.equal(allowed.body.betrokkeneType, 'medewerker');
      });

      it('judges a request naming another zaak on the rol’s own zaak: the other is not looked at', async () => {
        const geheim = (await post('/zaken', zaakInput({ zaaktype: ZAAKTYPE_GEHEIM }))).body;
        const response = await put(rol.url, replacement({ zaak: geheim.url }), 'bijwerker');
        assert.deepEqual([response.status, ...params(response.body)], [400, ['zaak', 'wijzigen-niet-toegelaten']], response.text);
        const elsewhere = await put(rol.url, replacement({ zaak: geheim.url }), 'elders');
        assert.deepEqual([elsewhere.status, elsewhere.body.code], [403, 'permission_denied'], 'no scope on the rol’s zaak');
      });

      it('needs a token', async () => {
        const response = await api.request(rol.url, { method: 'PUT', json: replacement() });
        assert.equal(response.status, 401);
      });
    });

    it('answers 404 for a rol that does not exist, or a malformed uuid', async () => {
      for (const url of [rol.url.replace(rol.uuid, '00000000-0000-4000-8000-000000000000'), rol.url.replace(rol.uuid, 'geen-uuid')]) {
        const response = await put(url, replacement());
        assert.deepEqual([response.status, response.headers.get('content-type')], [404, 'application/problem+json'], url);
      }
    });

    it('serves PUT beside GET, HEAD and DELETE; PATCH is 405 with Allow', async () => {
      const response = await as('admin', rol.url, { method: 'PATCH', json: { roltoelichting: 'x' } });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'GET, HEAD, PUT, DELETE, OPTIONS');
      const document = (await api.request('/openapi.json')).body;
      const operation = document.paths['/rollen/{uuid}'].put;
      assert.equal(operation.operationId, 'rol_update');
      assert.deepEqual(operation.security, [{ 'JWT-Claims': ['zaken.bijwerken', 'zaken.geforceerd-bijwerken'] }]);
      assert.equal(operation.requestBody.content['application/json'].schema.$ref, '#/components/schemas/Rol');
      assert.match(operation.description, /betrokkeneIdentificatie` gevalideerd tegen de betrokkeneType/);
    });

    it('through services.zaken: changes what it names, and keeps the rol with its zaak', async () => {
      const zaken = api.registry.services.zaken;
      const scope = { baseUrl: api.base, actor: { clientId: 'beheer', reason: 'correctie' } };
      const changed = await zaken.updateRecord(scope, 'rol', rol.url, { roltoelichting: 'gecorrigeerd' });
      assert.equal(changed.roltoelichting, 'gecorrigeerd');
      assert.deepEqual(changed.betrokkeneIdentificatie, rol.betrokkeneIdentificatie, 'a service update is partial');
      const other = (await post('/zaken', zaakInput())).body;
      await assert.rejects(zaken.updateRecord(scope, 'rol', rol.url, { zaak: other.url }), (error: any) => {
        assert.deepEqual(params(error), [['zaak', 'wijzigen-niet-toegelaten']]);
        return true;
      });
      assert.equal((await get(rol.url)).body.zaak, zaak.url);
    });
  });
}
