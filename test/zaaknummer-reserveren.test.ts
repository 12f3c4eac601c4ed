import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadContract } from '../scripts/contract.js';
import { postgresStorage, signZgwJwt, staticAuthorizations, type Applicatie, type Storage } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { RSIN, RSIN_2, ZAAKTYPE, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

const CONTRACT = loadContract(fileURLToPath(new URL('../reference/zaken-api-1.8.0.openapi.yaml', import.meta.url)));
const GENERATED = /^ZAAK-\d{4}-\d{10}$/;
const SECRET = 'reservation-secret-of-at-least-32-bytes';

type Api = Pick<TestServer, 'request'>;
const reserve = (api: Api, json: unknown) => api.request('/zaaknummer_reserveren', { method: 'POST', json });
const reserved = async (api: Api, aantal?: number, bronorganisatie = RSIN): Promise<string[]> => {
  const response = await reserve(api, { bronorganisatie, ...(aantal === undefined ? {} : { aantal }) });
  assert.equal(response.status, 201, response.text);
  return response.body.map((item: { zaaknummer: string }) => item.zaaknummer);
};
const createZaak = (api: Api, overrides: Record<string, unknown> = {}) => api.request('/zaken', { method: 'POST', json: zaakInput(overrides) });
const fieldErrors = (response: { body: any }) => response.body.invalidParams.map((p: any) => `${p.name}:${p.code}`);
/** The number `k` further in the sequence than `zaaknummer`. */
const plus = (zaaknummer: string, k: number) => zaaknummer.replace(/\d{10}$/, (n) => String(Number(n) + k).padStart(10, '0'));

for (const backend of BACKENDS) {
  describe(`POST /zaaknummer_reserveren on ${backend.name}`, () => {
    let api: TestServer;
    const count = async (table: string) => Number((await api.registry.services.storage.knex(table).count({ count: '*' }))[0].count);

    before(async () => {
      api = await startRegistry(await backend.open());
    });
    after(async () => api?.close());

    describe('the answer', () => {
      it('is a list of one {zaaknummer} of the generated form, by default, with no Location', async () => {
        const response = await reserve(api, { bronorganisatie: RSIN });
        assert.equal(response.status, 201, response.text);
        assert.equal(response.headers.get('content-type'), 'application/json');
        assert.equal(response.headers.get('location'), null);
        assert.equal(response.body.length, 1);
        assert.deepEqual(Object.keys(response.body[0]), ['zaaknummer']);
        assert.match(response.body[0].zaaknummer, GENERATED);
      });

      it('holds `aantal` numbers, in ascending order, each new', async () => {
        const first = await reserved(api, 1);
        const three = await reserved(api, 3);
        assert.deepEqual(three, [1, 2, 3].map((k) => plus(first[0], k)));
        assert.equal(new Set([...first, ...three]).size, 4);
      });

      it('is served as the 1.8.0 contract describes it: operation, scope, request and an array of ReserveZaakIdentificatie', async () => {
        const contract = CONTRACT.paths['/zaaknummer_reserveren'].post;
        const served = (await api.request('/openapi.json')).body;
        const operation = served.paths['/zaaknummer_reserveren'].post;
        assert.equal(operation.operationId, contract.operationId);
        assert.deepEqual(operation.security, contract.security);
        assert.deepEqual(operation.responses['201'].content['application/json'].schema, contract.responses['201'].content['application/json'].schema);
        assert.equal(operation.requestBody.content['application/json'].schema.$ref, contract.requestBody.content['application/json'].schema.$ref);
        for (const name of ['ReserveZaakIdentificatieRequest', 'ReserveZaakIdentificatie']) {
          const [ours, theirs] = [served.components.schemas[name], CONTRACT.components.schemas[name]];
          assert.deepEqual(Object.keys(ours.properties).sort(), Object.keys(theirs.properties).sort(), name);
          assert.deepEqual(ours.required, theirs.required, name);
        }
        assert.equal(served.components.schemas.ReserveZaakIdentificatieRequest.properties.aantal.maximum, 100);
      });

      it('keeps each reservation with its bronorganisatie, client and time, and writes no audit trail or outbox row', async () => {
        const [audit, outbox] = [await count('audittrail'), await count('outbox')];
        const before = Date.now();
        const [zaaknummer] = await reserved(api, 1, RSIN_2);
        const row = await api.registry.services.storage.knex('zaaknummer_reservation').where({ identificatie: zaaknummer }).first();
        assert.equal(row.bronorganisatie, RSIN_2);
        assert.equal(row.client_id, 'development');
        assert.ok(Math.abs(new Date(row.reserved_at).getTime() - before) < 60_000, String(row.reserved_at));
        assert.equal(await count('audittrail'), audit);
        assert.equal(await count('outbox'), outbox);
      });
    });

    describe('bounds and bad input', () => {
      it('reserves up to 100 at once and refuses 0, 101, fractions and strings with 400 on aantal, reserving nothing', async () => {
        assert.equal((await reserved(api, 100)).length, 100);
        const before = await count('zaaknummer_reservation');
        const cases: [unknown, string][] = [
          [0, 'aantal:min_value'],
          [-3, 'aantal:min_value'],
          [101, 'aantal:max_value'],
          [1.5, 'aantal:invalid'],
          ['2', 'aantal:invalid'],
          [true, 'aantal:invalid'],
        ];
        for (const [aantal, expected] of cases) {
          const response = await reserve(api, { bronorganisatie: RSIN, aantal });
          assert.equal(response.status, 400, `${JSON.stringify(aantal)}: ${response.text}`);
          assert.equal(response.headers.get('content-type'), 'application/problem+json');
          assert.deepEqual(fieldErrors(response), [expected], JSON.stringify(aantal));
        }
        assert.equal(await count('zaaknummer_reservation'), before);
      });

      it('takes aantal null as not sent: one number', async () => {
        const response = await reserve(api, { bronorganisatie: RSIN, aantal: null });
        assert.equal(response.status, 201, response.text);
        assert.equal(response.body.length, 1);
      });

      it('checks bronorganisatie as an RSIN with the codes of Zaak.bronorganisatie', async () => {
        const cases: [unknown, string[]][] = [
          [undefined, ['bronorganisatie:required']],
          ['123456789', ['bronorganisatie:invalid']],
          ['12345678a', ['bronorganisatie:only-digits']],
          ['12345678', ['bronorganisatie:invalid-length']],
          ['', ['bronorganisatie:invalid-length']],
          ['5174399430', ['bronorganisatie:max_length', 'bronorganisatie:invalid-length']],
          [517439943, ['bronorganisatie:invalid']],
          [null, ['bronorganisatie:null']],
        ];
        for (const [bronorganisatie, expected] of cases) {
          const response = await reserve(api, { bronorganisatie, aantal: 2 });
          assert.equal(response.status, 400, `${JSON.stringify(bronorganisatie)}: ${response.text}`);
          assert.deepEqual(fieldErrors(response).sort(), expected.sort(), JSON.stringify(bronorganisatie));
          const zaak = await createZaak(api, { bronorganisatie });
          assert.deepEqual(fieldErrors(zaak).filter((p: string) => p.startsWith('bronorganisatie')).sort(), expected.sort(), `the zaak: ${JSON.stringify(bronorganisatie)}`);
        }
      });

      it('answers a body that is no object, or no JSON, with a problem', async () => {
        const list = await reserve(api, [{ bronorganisatie: RSIN }]);
        assert.equal(list.status, 400);
        assert.deepEqual(fieldErrors(list), ['nonFieldErrors:invalid']);
        const text = await api.request('/zaaknummer_reserveren', { method: 'POST', body: 'bronorganisatie=517439943', headers: { 'content-type': 'text/plain' } });
        assert.equal(text.status, 415);
        assert.equal(text.headers.get('content-type'), 'application/problem+json');
        const get = await api.request('/zaaknummer_reserveren');
        assert.equal(get.status, 405);
        assert.equal(get.headers.get('allow'), 'POST, OPTIONS');
      });
    });

    describe('creating zaken with reserved numbers', () => {
      it('gives a reserved number to the zaak created with it once, then answers 400 identificatie-niet-uniek', async () => {
        const [zaaknummer] = await reserved(api);
        const created = await createZaak(api, { identificatie: zaaknummer });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.identificatie, zaaknummer);
        const again = await createZaak(api, { identificatie: zaaknummer, omschrijving: 'Tweede' });
        assert.equal(again.status, 400);
        assert.deepEqual(fieldErrors(again), ['identificatie:identificatie-niet-uniek']);
      });

      it('never generates a reserved number for a zaak created without identificatie', async () => {
        const numbers = new Set(await reserved(api, 5));
        const [last] = [...numbers].slice(-1);
        const generated = await Promise.all(Array.from({ length: 5 }, () => createZaak(api)));
        for (const zaak of generated) {
          assert.equal(zaak.status, 201, zaak.text);
          assert.ok(!numbers.has(zaak.body.identificatie), zaak.body.identificatie);
        }
        // Numbers reserved after those creates lie beyond them too.
        const later = await reserved(api, 2);
        assert.ok(later.every((n) => n > last && !generated.some((z) => z.body.identificatie === n)));
      });

      it("refuses a number reserved for another bronorganisatie with 400 identificatie-gereserveerd, on create and on update, storing nothing", async () => {
        const [zaaknummer] = await reserved(api, 1, RSIN_2);
        const zaken = await count('zaak');
        const refused = await createZaak(api, { identificatie: zaaknummer });
        assert.equal(refused.status, 400, refused.text);
        assert.deepEqual(fieldErrors(refused), ['identificatie:identificatie-gereserveerd']);
        assert.equal(await count('zaak'), zaken);

        const other = await createZaak(api, { identificatie: 'EIGEN-RESERVERING-1' });
        const renamed = await api.request(`/zaken/${other.body.uuid}`, { method: 'PATCH', json: { identificatie: zaaknummer } });
        assert.equal(renamed.status, 400, renamed.text);
        assert.deepEqual(fieldErrors(renamed), ['identificatie:identificatie-gereserveerd']);

        const own = await createZaak(api, { identificatie: zaaknummer, bronorganisatie: RSIN_2 });
        assert.equal(own.status, 201, own.text);
        const moved = await api.request(`/zaken/${own.body.uuid}`, { method: 'PATCH', json: { bronorganisatie: RSIN } });
        assert.equal(moved.status, 400, moved.text);
        assert.deepEqual(fieldErrors(moved), ['identificatie:identificatie-gereserveerd']);
        const unchanged = await api.request(`/zaken/${own.body.uuid}`, { method: 'PUT', json: zaakInput({ identificatie: zaaknummer, bronorganisatie: RSIN_2, omschrijving: 'Bijgewerkt' }) });
        assert.equal(unchanged.status, 200, unchanged.text);
        assert.equal((await api.request(`/zaken/${own.body.uuid}`)).body.bronorganisatie, RSIN_2);
      });

      it('accepts a number of the generated form that nobody reserved, and reserves past it', async () => {
        const [last] = await reserved(api);
        const chosen = plus(last, 1);
        const created = await createZaak(api, { identificatie: chosen, bronorganisatie: RSIN_2 });
        assert.equal(created.status, 201, created.text);
        assert.deepEqual(await reserved(api), [plus(last, 2)]);
        assert.equal(await api.registry.services.storage.knex('zaaknummer_reservation').where({ identificatie: chosen }).first(), undefined);
      });
    });

    it('checks zaken inserted in bulk in one statement, refusing the statement with a number reserved for another bronorganisatie', async () => {
      const { knex } = api.registry.services.storage;
      // On a server, more rows than its lock table holds by default (64 × max_connections): the check takes no lock per row.
      const bulk = backend.name === 'PostgreSQL' ? 10_000 : 1_000;
      const [elsewhere] = await reserved(api, 1, RSIN_2);
      const zaken = await count('zaak');
      // Numbers of the generated form from another year: each is looked up among the reservations.
      const insert = (extra: string[]) =>
        knex.raw(
          `insert into zaak (uuid, identificatie, bronorganisatie, zaaktype, registratiedatum, verantwoordelijke_organisatie, startdatum, vertrouwelijkheidaanduiding, vertrouwelijkheid_rank)
           select gen_random_uuid(), identificatie, ?, ?, '2024-03-01', ?, '2024-03-01', 'openbaar', 1
           from (select 'ZAAK-1999-' || lpad(g::text, 10, '0') as identificatie from generate_series(1, ?::int) g union all select unnest(?::text[])) numbers`,
          [RSIN, ZAAKTYPE, RSIN, bulk, extra],
        );
      await assert.rejects(insert([elsewhere]), (error: any) => error.constraint === 'zaaknummer_reserved');
      assert.equal(await count('zaak'), zaken);
      await insert([]);
      assert.equal(await count('zaak'), zaken + bulk);
    });

    describe('authorization', () => {
      let secured: TestServer;
      const application = (clientId: string, scopes: string[]): Applicatie => ({
        clientIds: [clientId],
        label: clientId,
        heeftAlleAutorisaties: false,
        autorisaties: [{ component: 'zrc', scopes, zaaktype: ZAAKTYPE, maxVertrouwelijkheidaanduiding: 'openbaar' }],
      });
      const as = async (clientId: string) => {
        const token = await signZgwJwt(clientId, SECRET);
        return { request: (path: string, init: RequestInit & { json?: unknown } = {}) => secured.request(path, { ...init, headers: { authorization: `Bearer ${token}` } }) };
      };

      before(async () => {
        const storage = api.registry.services.storage;
        const applications = [application('aanmaker', ['zaken.aanmaken']), application('lezer', ['zaken.lezen', 'zaken.bijwerken'])];
        secured = await startRegistry(Object.create(storage, { close: { value: async () => undefined } }), {
          authorization: { clients: { aanmaker: SECRET, lezer: SECRET }, source: staticAuthorizations(applications) },
        });
      });
      after(async () => secured?.close());

      it('needs zaken.aanmaken (for any zaaktype): 403 without it, 401 without a token', async () => {
        const ok = await reserve(await as('aanmaker'), { bronorganisatie: RSIN, aantal: 2 });
        assert.equal(ok.status, 201, ok.text);
        const row = await api.registry.services.storage.knex('zaaknummer_reservation').where({ identificatie: ok.body[0].zaaknummer }).first();
        assert.equal(row.client_id, 'aanmaker');
        const before = await count('zaaknummer_reservation');
        const refused = await reserve(await as('lezer'), { bronorganisatie: RSIN });
        assert.equal(refused.status, 403);
        assert.equal(refused.body.code, 'permission_denied');
        assert.equal((await secured.request('/zaaknummer_reserveren', { method: 'POST', json: { bronorganisatie: RSIN } })).status, 401);
        assert.equal(await count('zaaknummer_reservation'), before);
      });
    });

    it('works beside the plugins of the standard preset, whose write hooks see an operation on no zaak', async () => {
      const standard = await startRegistry(Object.create(api.registry.services.storage, { close: { value: async () => undefined } }), { preset: 'standard' });
      try {
        const [zaaknummer] = await reserved(standard, 1);
        const created = await createZaak(standard, { identificatie: zaaknummer });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.body.identificatie, zaaknummer);
        const refused = await createZaak(standard, { identificatie: (await reserved(standard, 1, RSIN_2))[0] });
        assert.deepEqual(fieldErrors(refused), ['identificatie:identificatie-gereserveerd']);
      } finally {
        await standard.close();
      }
    });

    describe('two instances on one database', () => {
      let second: Storage | undefined;
      let instances: TestServer[] = [];

      before(async () => {
        const storage = api.registry.services.storage;
        // PostgreSQL: a pool of its own, as another process would have; PGlite has one connection to share.
        second = storage.kind === 'postgres' ? await postgresStorage({ connection: storage.description, pool: { max: 10 } }) : undefined;
        const keepOpen = (s: Storage) => Object.create(s, { close: { value: async () => undefined } }) as Storage;
        instances = await Promise.all([startRegistry(keepOpen(storage)), startRegistry(keepOpen(second ?? storage))]);
      });
      after(async () => {
        await Promise.all(instances.map((instance) => instance.close()));
        await second?.close();
      });

      it('reserving and creating at once: no identificatie twice, no reserved one generated, each reserved one given once', async () => {
        const [a, b] = instances;
        const work: Promise<{ kind: 'reserved'; numbers: string[] } | { kind: 'generated'; identificatie: string }>[] = [];
        for (let i = 0; i < 60; i++) {
          const instance = i % 2 ? a : b;
          if (i % 3 === 0) work.push(reserved(instance, 1 + (i % 5)).then((numbers) => ({ kind: 'reserved' as const, numbers })));
          else {
            work.push(
              createZaak(instance, { omschrijving: `gelijktijdig ${i}` }).then((zaak) => {
                assert.equal(zaak.status, 201, zaak.text);
                return { kind: 'generated' as const, identificatie: zaak.body.identificatie as string };
              }),
            );
          }
        }
        const outcomes = await Promise.all(work);
        const reservedNumbers = outcomes.flatMap((o) => (o.kind === 'reserved' ? o.numbers : []));
        const generated = outcomes.flatMap((o) => (o.kind === 'generated' ? [o.identificatie] : []));
        assert.equal(reservedNumbers.length, [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57].reduce((sum, i) => sum + 1 + (i % 5), 0));
        assert.equal(new Set([...reservedNumbers, ...generated]).size, reservedNumbers.length + generated.length, 'every number once');
        for (const identificatie of generated) assert.ok(!reservedNumbers.includes(identificatie), identificatie);

        // Every reserved number given twice at the same moment, once through each instance: one zaak gets it.
        const given = await Promise.all(reservedNumbers.flatMap((identificatie) => [createZaak(a, { identificatie }), createZaak(b, { identificatie })]));
        for (let i = 0; i < reservedNumbers.length; i++) {
          const pair = [given[2 * i], given[2 * i + 1]];
          assert.deepEqual(pair.map((r) => r.status).sort(), [201, 400], `${reservedNumbers[i]}: ${pair.map((r) => r.text).join(' | ')}`);
          assert.deepEqual(fieldErrors(pair.find((r) => r.status === 400)!), ['identificatie:identificatie-niet-uniek']);
        }
        const knex = api.registry.services.storage.knex;
        const duplicates = await knex('zaak').select('identificatie').groupBy('identificatie').havingRaw('count(*) > 1');
        assert.deepEqual(duplicates, []);
      });
    });
  });
}
