import assert from 'node:assert/strict';
import { archive, signZgwJwt, staticAuthorizations, zrcRules, type Applicatie, type Plugin } from '../../src/index.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { parts, registreren } from '../../test/helpers/handelingen.js';
import { TYPES, ZAAKTYPE, startRegistry, type TestServer } from '../../test/helpers/registry.js';
import { handelingen } from './index.js';

const SECRET = 'handelingen-test-secret-of-at-least-32-bytes';

/** Applications by client id: all authorizations, or these scopes on the test zaaktype. */
const APPLICATIONS: Record<string, string[] | 'all'> = {
  alles: 'all',
  intake: ['zaken.aanmaken', 'zaken.lezen'],
  behandelaar: ['zaken.aanmaken', 'zaken.bijwerken', 'zaken.statussen.toevoegen', 'zaken.lezen'],
  eerste: ['zaken.aanmaken', 'zaken.bijwerken', 'zaken.lezen'],
  bijwerker: ['zaken.bijwerken', 'zaken.lezen'],
  heropener: ['zaken.aanmaken', 'zaken.bijwerken', 'zaken.geforceerd-bijwerken', 'zaken.statussen.toevoegen', 'zaken.lezen'],
};

function applications(): Applicatie[] {
  return Object.entries(APPLICATIONS).map(([clientId, scopes]) => ({
    clientIds: [clientId],
    label: clientId,
    heeftAlleAutorisaties: scopes === 'all',
    autorisaties: scopes === 'all' ? [] : [{ component: 'zrc', scopes, zaaktype: ZAAKTYPE, maxVertrouwelijkheidaanduiding: 'zeer_geheim' }],
  }));
}

/** Records, per change announced, the resource, the action and the handeling it was part of. */
function changeRecorder(): Plugin & { changes: string[] } {
  const changes: string[] = [];
  return {
    name: 'change-recorder',
    changes,
    resourceChanged(change) {
      changes.push(`${change.ctx?.partOf?.operation.id ?? '-'} ${change.resource} ${change.action}`);
    },
  };
}

for (const backend of BACKENDS) {
  describe(`handelingen on ${backend.name}`, () => {
    let api: TestServer;
    const recorder = changeRecorder();
    const tokens = new Map<string, string>();
    const as = async (clientId: string) => {
      if (!tokens.has(clientId)) tokens.set(clientId, await signZgwJwt(clientId, SECRET));
      return { authorization: `Bearer ${tokens.get(clientId)}` };
    };
    const post = async (path: string, json: unknown, clientId = 'alles') => api.request(path, { method: 'POST', json, headers: await as(clientId) });
    const get = async (path: string) => api.request(path, { headers: await as('alles') });
    const registered = async (body: Record<string, unknown> = registreren()) => {
      const response = await post('/zaak_registreren', body);
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const invalid = (response: { status: number; body: any; text: string }) => {
      assert.equal(response.status, 400, response.text);
      return response.body.invalidParams.map((p: { name: string; code: string }) => `${p.name} ${p.code}`);
    };

    before(async () => {
      api = await startRegistry(await backend.open(), {
        plugins: [zrcRules(), archive(), handelingen(), recorder],
        authorization: { clients: Object.fromEntries(Object.keys(APPLICATIONS).map((id) => [id, SECRET])), source: staticAuthorizations(applications()) },
      });
    });
    after(() => api?.close());

    it('serves the five operations in the OpenAPI document, experimental, with every error answer; without the plugin none', async () => {
      const document = (await get('/openapi.json')).body;
      const operations = [
        ['/zaak_registreren', 'registreerzaak_create', '201'],
        ['/zaak_opschorten/{uuid}', 'zaakopschorten', '200'],
        ['/zaak_verlengen/{uuid}', 'zaakverlengen', '200'],
        ['/zaak_bijwerken/{uuid}', 'zaakbijwerken', '200'],
        ['/zaak_afsluiten/{uuid}', 'zaakafsluiten', '200'],
      ];
      for (const [path, operationId, success] of operations) {
        const operation = document.paths[path]?.post;
        assert.equal(operation?.operationId, operationId, path);
        assert.equal(operation['x-experimental'], true, path);
        assert.match(operation.description, /^EXPERIMENTEEL/);
        for (const status of [success, '400', '401', '403', '404', '409', '415']) assert.ok(operation.responses[status], `${path} ${status}`);
        const request = operation.requestBody.content['application/json'].schema.$ref.split('/').pop();
        assert.ok(document.components.schemas[request], request);
      }
      assert.deepEqual(document.components.schemas.ZaakRegistrerenRequest.required, ['zaak', 'rollen', 'status']);
      const without = await startRegistry(await backend.open(), { plugins: [zrcRules()] });
      try {
        const paths = Object.keys((await without.request('/openapi.json')).body.paths);
        assert.ok(paths.includes('/zaken'));
        assert.deepEqual(paths.filter((path) => path.startsWith('/zaak_') && path !== '/zaak_reserveren'), []);
        assert.equal((await without.request('/zaak_registreren', { method: 'POST', json: registreren() })).status, 404);
      } finally {
        await without.close();
      }
    });

    it('answers bad input of every part with a 4xx problem, never a 500, and stores nothing', async () => {
      const { zaak } = await registered();
      const before = (await get(`/zaken/${zaak.uuid}/audittrail`)).body.length;
      const bodies: unknown[] = [[], 'tekst', 5, null, { zaak: 'x', rollen: 'y', status: 1 }, { zaak: [], rollen: [1, 'x', null], status: {} }, { zaak: { zaaktype: 5 }, rollen: [{}], status: { statustype: 'geen-url', datumStatusGezet: 'gisteren' } }];
      const paths = ['/zaak_registreren', ...['opschorten', 'verlengen', 'bijwerken', 'afsluiten'].map((name) => `/zaak_${name}/${zaak.uuid}`)];
      const oddParts = [{ zaak: { opschorting: 'ja', verlenging: { duur: 'lang' } }, status: { statustype: TYPES.statustypeStart, datumStatusGezet: 5 }, resultaat: { resultaattype: 7 }, rollen: [{ uuid: 12, betrokkeneType: 'x' }] }];
      for (const path of paths) {
        for (const body of [...bodies, ...oddParts]) {
          const response = await api.request(path, { method: 'POST', headers: { ...(await as('alles')), 'content-type': 'application/json' }, body: JSON.stringify(body) });
          assert.ok(response.status >= 400 && response.status < 500, `${path} ${JSON.stringify(body)}: ${response.status} ${response.text}`);
          assert.equal(response.headers.get('content-type'), 'application/problem+json');
        }
      }
      assert.equal((await get(`/zaken/${zaak.uuid}/audittrail`)).body.length, before);
    });

    it('tells resourceChanged hooks which handeling a change was part of (change.ctx.partOf)', async () => {
      const { zaak } = await registered();
      recorder.changes.length = 0;
      assert.equal((await post(`/zaak_afsluiten/${zaak.uuid}`, { zaak: {}, resultaat: parts.resultaat(), status: parts.eindstatus() })).status, 200);
      assert.deepEqual(recorder.changes, ['zaakafsluiten zaak partial_update', 'zaakafsluiten resultaat create', 'zaakafsluiten status create']);
      recorder.changes.length = 0;
      assert.equal((await api.request(`/zaken/${zaak.uuid}`, { method: 'PATCH', json: { toelichting: 'los' }, headers: await as('alles') })).status, 200);
      assert.deepEqual(recorder.changes, ['- zaak partial_update']);
    });

    describe('zaak_registreren', () => {
      it('answers 201 with the zaak as read back after its status, and every record as its own read shows it', async () => {
        const answer = await registered();
        assert.deepEqual(Object.keys(answer).sort(), ['rollen', 'status', 'zaak', 'zaakinformatieobjecten', 'zaakobjecten']);
        assert.deepEqual((await get(`/zaken/${answer.zaak.uuid}`)).body, answer.zaak);
        assert.equal(answer.zaak.status, answer.status.url);
        assert.deepEqual((await get(answer.status.url)).body, answer.status);
        assert.equal(answer.rollen.length, 3);
        for (const rol of answer.rollen) assert.deepEqual((await get(rol.url)).body, rol);
        assert.deepEqual(answer.zaakobjecten.map((o: any) => o.object), ['http://bag.test/panden/1', 'http://bag.test/panden/2']);
        assert.deepEqual(answer.zaakinformatieobjecten, []);
      });

      it('takes an empty list of rollen', async () => {
        const answer = await registered({ zaak: parts.zaak(), status: parts.status(), rollen: [] });
        assert.deepEqual(answer.rollen, []);
      });

      it('names each missing part: zaak, rollen, status', async () => {
        assert.deepEqual(invalid(await post('/zaak_registreren', {})), ['zaak required', 'rollen required', 'status required']);
      });

      it('names a part of the wrong type', async () => {
        assert.deepEqual(invalid(await post('/zaak_registreren', { ...registreren(), rollen: {} })), ['rollen invalid']);
      });

      it('refuses an eindstatus: a zaak cannot be registered closed (status.nonFieldErrors resultaat-does-not-exist)', async () => {
        assert.deepEqual(invalid(await post('/zaak_registreren', { ...registreren(), status: parts.eindstatus() })), ['status.nonFieldErrors resultaat-does-not-exist']);
      });

      it('names the errors of a part under the part and its index', async () => {
        const body = registreren();
        (body.rollen[2] as Record<string, unknown>).betrokkeneType = 'buurman';
        assert.deepEqual(invalid(await post('/zaak_registreren', body)), ['rollen.2.betrokkeneType invalid_choice']);
        assert.deepEqual(invalid(await post('/zaak_registreren', { ...registreren(), status: { statustype: TYPES.statustypeStart } })), ['status.datumStatusGezet required']);
        assert.deepEqual(invalid(await post('/zaak_registreren', { ...registreren(), zaak: parts.zaak({ bronorganisatie: undefined }) })), ['zaak.bronorganisatie required']);
        const otherType = registreren();
        (otherType.rollen[1] as Record<string, unknown>).roltype = `${TYPES.roltypeBehandelaar.slice(0, -1)}9`;
        const [error] = invalid(await post('/zaak_registreren', otherType));
        assert.match(error, /^rollen\.1\.roltype /);
      });

      it('needs zaken.aanmaken and zaken.bijwerken: an intake client with zaken.aanmaken alone gets 403, before its body is checked', async () => {
        assert.equal((await post('/zaak_registreren', registreren(), 'intake')).status, 403);
        assert.equal((await post('/zaak_registreren', { zaak: parts.zaak() }, 'intake')).status, 403);
        assert.equal((await post('/zaak_registreren', registreren(), 'bijwerker')).status, 403);
        assert.equal((await post('/zaak_registreren', registreren(), 'eerste')).status, 201);
      });
    });

    describe('zaak_opschorten and zaak_verlengen', () => {
      it('zaak_opschorten stores the opschorting and a status; other zaak fields are not written', async () => {
        const { zaak } = await registered();
        const response = await post(`/zaak_opschorten/${zaak.uuid}`, {
          zaak: { opschorting: { indicatie: true, reden: 'Wacht op stukken' }, omschrijving: 'genegeerd' },
          status: parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z'),
        });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(Object.keys(response.body).sort(), ['status', 'zaak']);
        assert.equal(response.body.zaak.opschorting.indicatie, true);
        assert.equal(response.body.zaak.opschorting.reden, 'Wacht op stukken');
        assert.equal(response.body.zaak.omschrijving, zaak.omschrijving);
        assert.equal(response.body.zaak.status, response.body.status.url);
      });

      it('zaak_verlengen stores the verlenging and a status', async () => {
        const { zaak } = await registered();
        const response = await post(`/zaak_verlengen/${zaak.uuid}`, { zaak: { verlenging: { reden: 'Drukte', duur: 'P14D' } }, status: parts.status(TYPES.statustypeStart, '2024-03-02T10:00:00Z') });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.zaak.verlenging, { reden: 'Drukte', duur: 'P14D' });
      });

      it('reports the zaak part and the status part together, and refuses an eindstatus (eindstatus-not-allowed)', async () => {
        const { zaak } = await registered();
        assert.deepEqual(invalid(await post(`/zaak_opschorten/${zaak.uuid}`, { zaak: {}, status: {} })), ['zaak.opschorting required', 'status.statustype required', 'status.datumStatusGezet required']);
        assert.deepEqual(invalid(await post(`/zaak_verlengen/${zaak.uuid}`, { zaak: { verlenging: { reden: 'x', duur: 'P1D' } }, status: parts.eindstatus() })), ['status.nonFieldErrors eindstatus-not-allowed']);
        assert.deepEqual(invalid(await post(`/zaak_opschorten/${zaak.uuid}`, { zaak: { opschorting: { indicatie: true } }, status: parts.status() })), ['zaak.opschorting.reden required']);
      });

      it('404 for a zaak that does not exist, 403 without the second scope group', async () => {
        assert.equal((await post('/zaak_opschorten/00000000-0000-4000-8000-000000000000', { zaak: { opschorting: { indicatie: true, reden: 'x' } }, status: parts.status() })).status, 404);
        const { zaak } = await registered();
        assert.equal((await post(`/zaak_opschorten/${zaak.uuid}`, { zaak: { opschorting: { indicatie: true, reden: 'x' } }, status: parts.status() }, 'bijwerker')).status, 403);
      });

      it("with zaken.aanmaken as the only status scope, a zaak that has a status gets no second one (Open Zaak's message)", async () => {
        const { zaak } = await registered();
        const response = await post(`/zaak_opschorten/${zaak.uuid}`, { zaak: { opschorting: { indicatie: true, reden: 'x' } }, status: parts.status() }, 'eerste');
        assert.equal(response.status, 403, response.text);
        assert.equal(response.body.detail, "Met de 'zaken.aanmaken' scope mag je slechts 1 status zetten");
      });
    });

    describe('zaak_bijwerken', () => {
      it('updates the zaak, sets a status and replaces the rollen: kept and updated, created, the others destroyed', async () => {
        const { zaak, rollen } = await registered();
        const [initiator, behandelaar] = rollen;
        const response = await post(`/zaak_bijwerken/${zaak.uuid}`, {
          zaak: { omschrijving: 'Bijgewerkt' },
          status: parts.status(TYPES.statustypeStart, '2024-03-03T10:00:00Z'),
          rollen: [{ ...parts.rol('111222333', TYPES.roltypeInitiator), uuid: initiator.uuid, roltoelichting: 'gewijzigd' }, parts.rol('218153207')],
        });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.zaak.omschrijving, 'Bijgewerkt');
        assert.deepEqual(response.body.rollen.map((r: any) => r.roltoelichting), ['gewijzigd', 'betrokkene 218153207']);
        assert.equal(response.body.rollen[0].uuid, initiator.uuid);
        const now = (await get(`/rollen?zaak=${encodeURIComponent(zaak.url)}`)).body.results;
        assert.deepEqual(now.map((r: any) => r.uuid).sort(), [initiator.uuid, response.body.rollen[1].uuid].sort());
        assert.equal((await get(behandelaar.url)).status, 404);
      });

      it('keeps the rollen when the key is absent, and destroys them all for []', async () => {
        const { zaak } = await registered();
        const status = parts.status(TYPES.statustypeStart, '2024-03-03T10:00:00Z');
        assert.equal((await post(`/zaak_bijwerken/${zaak.uuid}`, { status })).status, 200);
        assert.equal((await get(`/rollen?zaak=${encodeURIComponent(zaak.url)}`)).body.count, 3);
        assert.equal((await post(`/zaak_bijwerken/${zaak.uuid}`, { status, rollen: [] })).status, 200);
        assert.equal((await get(`/rollen?zaak=${encodeURIComponent(zaak.url)}`)).body.count, 0);
      });

      it('refuses a rol uuid twice (duplicate), of another zaak (missing-relation) or of none (does-not-exist), changing nothing', async () => {
        const { zaak, rollen } = await registered();
        const other = await registered();
        const rol = (uuid: string) => ({ ...parts.rol('111222333'), uuid });
        const before = (await get(`/zaken/${zaak.uuid}`)).body;
        const errors = invalid(
          await post(`/zaak_bijwerken/${zaak.uuid}`, {
            zaak: { omschrijving: 'niet opgeslagen' },
            status: parts.status(),
            rollen: [rol(rollen[0].uuid), rol(rollen[0].uuid), rol(other.rollen[0].uuid), rol('00000000-0000-4000-8000-000000000000')],
          }),
        );
        assert.deepEqual(errors, ['rollen.1.uuid duplicate', 'rollen.2.uuid missing-relation', 'rollen.3.uuid does-not-exist']);
        assert.deepEqual((await get(`/zaken/${zaak.uuid}`)).body, before);
      });

      it('refuses an eindstatus (eindstatus-not-allowed)', async () => {
        const { zaak } = await registered();
        assert.deepEqual(invalid(await post(`/zaak_bijwerken/${zaak.uuid}`, { status: parts.eindstatus() })), ['status.nonFieldErrors eindstatus-not-allowed']);
      });
    });

    describe('zaak_afsluiten', () => {
      it('writes the zaak, the resultaat and the eindstatus, which closes the zaak (archive derivation included)', async () => {
        const { zaak } = await registered();
        const response = await post(`/zaak_afsluiten/${zaak.uuid}`, { zaak: { omschrijving: 'Afgehandeld' }, resultaat: parts.resultaat(), status: parts.eindstatus() });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(Object.keys(response.body).sort(), ['resultaat', 'status', 'zaak']);
        assert.equal(response.body.zaak.einddatum, '2024-03-05');
        assert.equal(response.body.zaak.omschrijving, 'Afgehandeld');
        assert.equal(response.body.zaak.resultaat, response.body.resultaat.url);
        assert.deepEqual((await get(`/zaken/${zaak.uuid}`)).body, response.body.zaak);
      });

      it('takes zaak {} and needs an eindstatus (eindstatus-required)', async () => {
        const { zaak } = await registered();
        assert.deepEqual(invalid(await post(`/zaak_afsluiten/${zaak.uuid}`, { zaak: {}, resultaat: parts.resultaat(), status: parts.status() })), ['status.nonFieldErrors eindstatus-required']);
        assert.deepEqual(invalid(await post(`/zaak_afsluiten/${zaak.uuid}`, { resultaat: parts.resultaat() })), ['zaak required', 'status required']);
        assert.equal((await post(`/zaak_afsluiten/${zaak.uuid}`, { zaak: {}, resultaat: parts.resultaat(), status: parts.eindstatus() })).status, 200);
      });

      it('a closed zaak: 403 without zaken.geforceerd-bijwerken; with it, a second resultaat is refused (400)', async () => {
        const { zaak } = await registered();
        const body = { zaak: {}, resultaat: parts.resultaat(), status: parts.eindstatus() };
        assert.equal((await post(`/zaak_afsluiten/${zaak.uuid}`, body)).status, 200);
        const refused = await post(`/zaak_afsluiten/${zaak.uuid}`, body, 'behandelaar');
        assert.equal(refused.status, 403);
        assert.equal(refused.body.detail, 'Je mag geen gegevens aanpassen van een gesloten zaak.');
        assert.deepEqual(invalid(await post(`/zaak_afsluiten/${zaak.uuid}`, body)), ['resultaat.zaak unique']);
      });

      it('reopens through zaak_opschorten with zaken.heropenen, and not without it', async () => {
        const { zaak } = await registered();
        assert.equal((await post(`/zaak_afsluiten/${zaak.uuid}`, { zaak: {}, resultaat: parts.resultaat(), status: parts.eindstatus() })).status, 200);
        const opschorten = { zaak: { opschorting: { indicatie: true, reden: 'Bezwaar' } }, status: parts.status(TYPES.statustypeStart, '2024-03-06T10:00:00Z') };
        const refused = await post(`/zaak_opschorten/${zaak.uuid}`, opschorten, 'heropener');
        assert.equal(refused.status, 403);
        assert.equal(refused.body.detail, 'Het heropenen van een gesloten zaak is niet toegestaan zonder de scope zaken.heropenen');
        const reopened = await post(`/zaak_opschorten/${zaak.uuid}`, opschorten);
        assert.equal(reopened.status, 200, reopened.text);
        assert.equal(reopened.body.zaak.einddatum, null);
      });
    });
  });
}
