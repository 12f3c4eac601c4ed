import assert from 'node:assert/strict';
import { loadContract } from '../scripts/contract.js';
import { consoleLogger, createRegistry, signZgwJwt, staticAuthorizations, type Applicatie } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { TYPES, ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

/**
 * The zrc-006 matrix: every operation of the contract, called by four applications: one with the
 * operation's scope (must succeed), one with every other scope (403), one with the scope for another
 * zaaktype (403, or nothing listed) and one whose maximum confidentiality is too low (idem).
 */

const CONTRACT = loadContract();
/**
 * The operations the core documents: the matrix covers those of the contract (test/contract-1.8.test.ts
 * checks that every operation of the contract is served).
 */
const SERVED = await (async () => {
  const registry = await createRegistry({ storage: 'memory', migrate: false, preset: 'none', logger: consoleLogger('silent') });
  const document = registry.openapi() as { paths: Record<string, Record<string, { operationId?: string }>> };
  await registry.close();
  return new Set(Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId)));
})();
const ALL_SCOPES = [
  'zaken.lezen',
  'zaken.aanmaken',
  'zaken.bijwerken',
  'zaken.geforceerd-bijwerken',
  'zaken.heropenen',
  'zaken.statussen.toevoegen',
  'zaken.verwijderen',
  'audittrails.lezen',
];
const DOCUMENT = 'http://documenten.test/api/v1/enkelvoudiginformatieobjecten/71111111-1111-4111-8111-111111111111';
const SECRET = 'matrix-secret-of-at-least-thirty-two-bytes';

interface ContractOperation {
  id: string;
  method: string;
  path: string;
  scopes: string[];
  success: number;
}

/** Operations with the scopes of their `JWT-Claims` security, `(a | b)` being either. HEAD uses its GET's scopes. */
function contractOperations(): ContractOperation[] {
  const operations: ContractOperation[] = [];
  for (const [path, item] of Object.entries(CONTRACT.paths) as [string, any][]) {
    for (const [method, operation] of Object.entries(item) as [string, any][]) {
      if (!operation?.operationId || !SERVED.has(operation.operationId)) continue;
      const claim = (operation.security ?? item.get?.security)?.[0]?.['JWT-Claims']?.[0] ?? '';
      const scopes = claim.replace(/[()]/g, '').split('|').map((s: string) => s.trim()).filter(Boolean);
      const success = Number(Object.keys(operation.responses).find((s) => s.startsWith('2')));
      operations.push({ id: operation.operationId, method, path, scopes, success });
    }
  }
  return operations;
}

/** The one scope the permitted application gets: the first alternative (aanmaken may set only a first status). */
function grantedScope(operation: ContractOperation): string {
  return operation.id === 'status_create' ? 'zaken.statussen.toevoegen' : operation.scopes[0];
}

function app(clientId: string, autorisaties: { scopes: string[]; zaaktype: string; max: string }[], all = false): Applicatie {
  return {
    clientIds: [clientId],
    label: clientId,
    heeftAlleAutorisaties: all,
    autorisaties: autorisaties.map((a) => ({ component: 'zrc', scopes: a.scopes, zaaktype: a.zaaktype, maxVertrouwelijkheidaanduiding: a.max })),
  };
}

type Fixture = Record<string, any>;

for (const backend of BACKENDS) {
  describe(`Authorization matrix (zrc-006) on ${backend.name}`, function () {
    let api: TestServer;
    const applications: Applicatie[] = [app('admin', [], true)];
    const tokens = new Map<string, string>();
    const as = async (clientId: string, path: string, init: RequestInit & { json?: unknown } = {}) => {
      tokens.set(clientId, tokens.get(clientId) ?? (await signZgwJwt(clientId, SECRET)));
      return api.request(path, { ...init, headers: { ...(init.headers as object), authorization: `Bearer ${tokens.get(clientId)}` } });
    };
    const admin = (path: string, init: RequestInit & { json?: unknown } = {}) => as('admin', path, init);
    const created = async (path: string, json: unknown) => {
      const response = await admin(path, { method: 'POST', json });
      assert.equal(response.status, 201, `${path}: ${response.text}`);
      return response.body;
    };

    /** A vertrouwelijk zaak of ZAAKTYPE with one record of every kind. */
    async function fixture(): Promise<Fixture> {
      const zaak = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'vertrouwelijk' }));
      const z = { zaak: zaak.url };
      return {
        zaak,
        status: await created('/statussen', { ...z, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' }),
        resultaat: await created('/resultaten', { ...z, resultaattype: TYPES.resultaattype }),
        rol: await created('/rollen', { ...z, betrokkeneType: 'medewerker', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'x', betrokkene: 'http://m.test/1' }),
        zaakobject: await created('/zaakobjecten', { ...z, objectType: 'pand', object: 'http://bag.test/panden/1' }),
        zaakinformatieobject: await created('/zaakinformatieobjecten', { ...z, informatieobject: DOCUMENT }),
        zaakeigenschap: await created(`/zaken/${zaak.uuid}/zaakeigenschappen`, { ...z, eigenschap: TYPES.eigenschap, waarde: 'a' }),
        klantcontact: await created('/klantcontacten', { ...z, datumtijd: '2024-03-01T09:00:00Z' }),
        zaakcontactmoment: await created('/zaakcontactmomenten', { ...z, contactmoment: 'http://cm.test/contactmomenten/1' }),
        zaakverzoek: await created('/zaakverzoeken', { ...z, verzoek: 'http://vz.test/verzoeken/1' }),
        zaakbesluit: await created(`/zaken/${zaak.uuid}/besluiten`, { besluit: 'http://brc.test/besluiten/1' }),
        zaaknotitie: await created('/zaaknotities', { gerelateerdAan: zaak.url, onderwerp: 'Terugbellen', tekst: 'a' }),
        audittrail: (await admin(`/zaken/${zaak.uuid}/audittrail`)).body[0],
      };
    }

    /** The request an operation makes against the fixture: its URL and, for writes, a valid body. */
    async function requestFor(operation: ContractOperation, f: Fixture): Promise<{ url: string; json?: unknown }> {
      const resource = operation.id.replace(/_(list|create|retrieve|read|headers|update|partial_update|destroy|delete)$/, '').replace(/__zoek$/, '');
      const z = { zaak: f.zaak.url };
      const action = operation.id.slice(resource.length + 1);
      if (operation.id === 'zaak__zoek') return { url: '/zaken/_zoek', json: {} };
      if (operation.id === 'zaaknummer_reserveren') return { url: '/zaaknummer_reserveren', json: { bronorganisatie: f.zaak.bronorganisatie } };
      const collection = operation.path.replace('{zaak_uuid}', f.zaak.uuid);
      if (action === 'list') return { url: collection };
      const bodies: Record<string, unknown> = {
        zaak: zaakInput({ vertrouwelijkheidaanduiding: 'vertrouwelijk' }),
        status: { ...z, statustype: TYPES.statustypeEind, datumStatusGezet: '2024-03-02T10:00:00Z' },
        resultaat: { ...z, resultaattype: TYPES.resultaattype, toelichting: 'nieuw' },
        rol: { ...z, betrokkeneType: 'medewerker', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'y', betrokkene: 'http://m.test/2' },
        zaakobject: { ...z, objectType: 'pand', object: 'http://bag.test/panden/2' },
        zaakinformatieobject: { ...z, informatieobject: action === 'create' ? DOCUMENT.replace('7111', '7222') : DOCUMENT, titel: 'nieuw' },
        zaakeigenschap: { ...z, eigenschap: TYPES.eigenschap, waarde: 'b' },
        klantcontact: { ...z, datumtijd: '2024-03-02T09:00:00Z' },
        zaakcontactmoment: { ...z, contactmoment: 'http://cm.test/contactmomenten/2' },
        zaakverzoek: { ...z, verzoek: 'http://vz.test/verzoeken/2' },
        zaakbesluit: { besluit: 'http://brc.test/besluiten/2' },
        zaaknotitie: { gerelateerdAan: f.zaak.url, onderwerp: 'Nieuw', tekst: 'b' },
      };
      if (action === 'create') {
        // One resultaat per zaak: make room for the new one.
        if (resource === 'resultaat' && !f.resultaatRemoved) {
          assert.equal((await admin(f.resultaat.url, { method: 'DELETE' })).status, 204);
          f.resultaatRemoved = true;
        }
        return { url: collection, json: bodies[resource] };
      }
      const url = resource === 'audittrail' ? `/zaken/${f.zaak.uuid}/audittrail/${f.audittrail.uuid}` : f[resource].url;
      if (action === 'update' || action === 'partial_update') return { url, json: bodies[resource] };
      return { url };
    }

    const trailLength = async (f: Fixture) => (await admin(`/zaken/${f.zaak.uuid}/audittrail`)).body?.length;
    /** What a list answer shows of the fixture: its items (paginated or bare). */
    const listed = (body: any) => (Array.isArray(body) ? body : body.results);

    const operations = contractOperations();
    const cases = [
      // Exactly the fixture's confidentiality: one level less must already be refused (the last case).
      { name: 'with the scope', permitted: true, grant: (o: ContractOperation) => app(`ok-${o.id}`, [{ scopes: [grantedScope(o)], zaaktype: ZAAKTYPE, max: 'vertrouwelijk' }]) },
      { name: 'without the scope', permitted: false, grant: (o: ContractOperation) => app(`noscope-${o.id}`, [{ scopes: ALL_SCOPES.filter((s) => !o.scopes.includes(s)), zaaktype: ZAAKTYPE, max: 'zeer_geheim' }]) },
      { name: 'with the scope for another zaaktype', permitted: false, grant: (o: ContractOperation) => app(`other-${o.id}`, [{ scopes: o.scopes, zaaktype: ZAAKTYPE_GEHEIM, max: 'zeer_geheim' }]) },
      { name: 'with too low a maximum vertrouwelijkheid', permitted: false, grant: (o: ContractOperation) => app(`low-${o.id}`, [{ scopes: o.scopes, zaaktype: ZAAKTYPE, max: 'zaakvertrouwelijk' }]) },
    ];
    for (const operation of operations) for (const c of cases) applications.push(c.grant(operation));

    before(async () => {
      const clients = Object.fromEntries(applications.map((a) => [a.clientIds[0], SECRET]));
      api = await startRegistry(await backend.open(), { authorization: { clients, source: staticAuthorizations(applications) } });
    });
    after(async () => api?.close());

    for (const operation of operations) {
      it(`${operation.id}: ${operation.method.toUpperCase()} ${operation.path}`, async () => {
        const f = await fixture();
        // Refused first: the permitted call may change or remove the fixture.
        for (const c of [...cases.slice(1), cases[0]]) {
          const clientId = c.grant(operation).clientIds[0];
          const { url, json } = await requestFor(operation, f);
          const before = await trailLength(f);
          const response = await as(clientId, url, { method: operation.method.toUpperCase(), json });
          const label = `${operation.id} ${c.name}`;
          // A reservation concerns no zaak yet: zaken.aanmaken for any zaaktype, at any confidentiality, suffices.
          const permitted = c.permitted || (operation.id === 'zaaknummer_reserveren' && c.name !== 'without the scope');
          const isList = /_list$|__zoek$/.test(operation.id) && !operation.path.includes('{zaak_uuid}');
          if (permitted) {
            assert.equal(response.status, operation.success, `${label}: ${response.text}`);
            if (isList) assert.ok(listed(response.body).length > 0, `${label} lists the zaak's records`);
          } else if (isList && c.name !== 'without the scope') {
            assert.equal(response.status, 200, `${label}: ${response.text}`);
            assert.deepEqual(listed(response.body), [], `${label} lists nothing of the zaak`);
          } else {
            assert.equal(response.status, 403, `${label}: ${response.text}`);
            if (operation.method !== 'head') assert.equal(response.body.code, 'permission_denied', label);
            assert.equal(await trailLength(f), before, `${label} changed nothing`);
            if (json && !isList) {
              // Refused before references are looked up: failing look-ups give the same 403, not a 400 that tells something.
              const unknown = 'http://elders.test/api/v1/x/00000000-0000-4000-8000-000000000000';
              // A zaaknotitie's `status` is an enum of its own, checked with the body's schema.
              const probing = { ...(json as object), roltype: unknown, eigenschap: unknown, gezetdoor: unknown, ...(operation.id.startsWith('zaaknotitie_') ? {} : { status: unknown }) };
              const probe = await as(clientId, url, { method: operation.method.toUpperCase(), json: probing });
              assert.equal(probe.status, 403, `${label} with failing references: ${probe.text}`);
            }
          }
        }
      });
    }

    describe('moving and linking', () => {
      it('refuses to move a record to, or link a hoofdzaak from, a zaak out of reach', async () => {
        applications.push(app('mover', [{ scopes: ['zaken.lezen', 'zaken.bijwerken'], zaaktype: ZAAKTYPE, max: 'intern' }]));
        await api.close();
        const clients = Object.fromEntries(applications.map((a) => [a.clientIds[0], SECRET]));
        api = await startRegistry(await backend.open(), { authorization: { clients, source: staticAuthorizations(applications) } });
        const mine = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'openbaar' }));
        const secret = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding: 'geheim' }));
        const resultaat = await created('/resultaten', { zaak: mine.url, resultaattype: TYPES.resultaattype });
        const moved = await as('mover', resultaat.url, { method: 'PATCH', json: { zaak: secret.url } });
        assert.equal(moved.status, 403);
        assert.equal((await admin(resultaat.url)).body.zaak, mine.url);
        const linked = await as('mover', mine.url, { method: 'PATCH', json: { hoofdzaak: secret.url } });
        assert.equal(linked.status, 403);
        assert.equal((await admin(mine.url)).body.hoofdzaak, null);
        const filtered = await as('mover', `/resultaten?zaak=${encodeURIComponent(secret.url)}`);
        assert.equal(filtered.body.count, 0);
      });
    });

    describe('data filtering in SQL', () => {
      it('lists, counts and pages only the zaken within reach, in lists, _zoek and record lists', async () => {
        applications.push(app('intern', [{ scopes: ['zaken.lezen'], zaaktype: ZAAKTYPE, max: 'intern' }]));
        await api.close();
        const clients = Object.fromEntries(applications.map((a) => [a.clientIds[0], SECRET]));
        api = await startRegistry(await backend.open(), { authorization: { clients, source: staticAuthorizations(applications) } });
        const visible: string[] = [];
        for (const [i, vertrouwelijkheidaanduiding] of ['openbaar', 'geheim', 'intern', 'vertrouwelijk', 'beperkt_openbaar'].entries()) {
          const zaak = await created('/zaken', zaakInput({ vertrouwelijkheidaanduiding, omschrijving: `z${i}` }));
          await created('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z' });
          if (['openbaar', 'intern', 'beperkt_openbaar'].includes(vertrouwelijkheidaanduiding)) visible.push(zaak.url);
        }
        await created('/zaken', zaakInput({ zaaktype: ZAAKTYPE_GEHEIM }));

        const page1 = await as('intern', '/zaken?pageSize=2');
        assert.equal(page1.body.count, 3);
        assert.equal(page1.body.results.length, 2);
        const page2 = await as('intern', '/zaken?pageSize=2&page=2');
        assert.deepEqual([...page1.body.results, ...page2.body.results].map((z: any) => z.url).sort(), [...visible].sort());
        assert.equal(page2.body.next, null);
        const search = await as('intern', '/zaken/_zoek', { method: 'POST', json: { zaaktype: ZAAKTYPE } });
        assert.equal(search.body.count, 3);
        const statussen = await as('intern', '/statussen');
        assert.deepEqual(statussen.body.results.map((s: any) => s.zaak).sort(), [...visible].sort());
        assert.equal((await as('admin', '/zaken')).body.count, 6);
      });

      it('lets zaken.aanmaken alone set only the first status of a zaak', async () => {
        applications.push(app('creator', [{ scopes: ['zaken.aanmaken', 'zaken.lezen'], zaaktype: ZAAKTYPE, max: 'zeer_geheim' }]));
        await api.close();
        const clients = Object.fromEntries(applications.map((a) => [a.clientIds[0], SECRET]));
        api = await startRegistry(await backend.open(), { authorization: { clients, source: staticAuthorizations(applications) } });
        const zaak = (await as('creator', '/zaken', { method: 'POST', json: zaakInput() })).body;
        const status = (statustype: string) => as('creator', '/statussen', { method: 'POST', json: { zaak: zaak.url, statustype, datumStatusGezet: '2024-03-01T10:00:00Z' } });
        assert.equal((await status(TYPES.statustypeStart)).status, 201);
        const second = await status(TYPES.statustypeEind);
        assert.equal(second.status, 403);
        assert.equal(second.body.code, 'permission_denied');
      });
    });
  });
}
