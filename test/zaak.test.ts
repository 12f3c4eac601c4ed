import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { BACKENDS } from './helpers/backends.js';
import { RSIN, RSIN_2, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

describe('strictNulls', () => {
  it("restores the contract's strict behaviour: null on a non-nullable field is a 400", async () => {
    const api = await startRegistry(await BACKENDS[0].open(), { strictNulls: true });
    try {
      const refused = await api.request('/zaken', { method: 'POST', json: zaakInput({ opdrachtgevendeOrganisatie: null }) });
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.invalidParams.map((p: any) => `${p.name}:${p.code}`), ['opdrachtgevendeOrganisatie:null']);
    } finally {
      await api.close();
    }
  });
});

for (const backend of BACKENDS) {
  describe(`Zaak resource on ${backend.name}`, () => {
    let api: TestServer;
    const create = (overrides: Record<string, unknown> = {}) => api.request('/zaken', { method: 'POST', json: zaakInput(overrides) });

    before(async () => {
      api = await startRegistry(await backend.open());
    });
    after(async () => api?.close());
    beforeEach(async () => {
      await api.registry.services.storage.knex('zaak').delete();
    });

    describe('create and retrieve', () => {
      it('creates a zaak with generated identificatie, defaults and nested groups, and serves it back', async () => {
        const created = await create({ verlenging: null, kenmerken: [{ kenmerk: 'K1', bron: 'B' }] });
        assert.equal(created.status, 201);
        assert.equal(created.headers.get('location'), created.body.url);
        assert.match(created.body.identificatie, /^ZAAK-\d{4}-\d{10}$/);
        assert.equal(created.body.vertrouwelijkheidaanduiding, 'openbaar', 'derived from the zaaktype');
        assert.equal(created.body.archiefstatus, 'nog_te_archiveren');
        assert.deepEqual(created.body.verlenging, { reden: '', duur: null });
        assert.deepEqual(created.body.opschorting, { indicatie: false, reden: '' });
        assert.deepEqual(created.body.kenmerken, [{ kenmerk: 'K1', bron: 'B' }]);
        assert.equal(created.body.status, null);
        assert.deepEqual(created.body.deelzaken, []);

        const fetched = await api.request(`/zaken/${created.body.uuid}`);
        assert.equal(fetched.status, 200);
        assert.deepEqual(fetched.body, created.body);
      });

      it('keeps a client-supplied vertrouwelijkheidaanduiding and identificatie', async () => {
        const created = await create({ identificatie: 'MIJN-1', vertrouwelijkheidaanduiding: 'vertrouwelijk' });
        assert.equal(created.status, 201);
        assert.equal(created.body.identificatie, 'MIJN-1');
        assert.equal(created.body.vertrouwelijkheidaanduiding, 'vertrouwelijk');
      });

      it('answers 400 identificatie-niet-uniek for a duplicate (identificatie, bronorganisatie), but not across organisations', async () => {
        assert.equal((await create({ identificatie: 'DUP' })).status, 201);
        const duplicate = await create({ identificatie: 'DUP' });
        assert.equal(duplicate.status, 400);
        assert.equal(duplicate.headers.get('content-type'), 'application/problem+json');
        assert.deepEqual(duplicate.body.invalidParams.map((p: any) => [p.name, p.code]), [['identificatie', 'identificatie-niet-uniek']]);
        assert.equal((await create({ identificatie: 'DUP', bronorganisatie: RSIN_2 })).status, 201);
        const [{ count }] = await api.registry.services.storage.knex('zaak').count({ count: '*' });
        assert.equal(Number(count), 2, 'the failed create left nothing behind');
      });

      it('gives 50 concurrent creates 50 unique identificaties', async () => {
        const results = await Promise.all(Array.from({ length: 50 }, () => create()));
        assert.deepEqual(new Set(results.map((r) => r.status)), new Set([201]));
        assert.equal(new Set(results.map((r) => r.body.identificatie)).size, 50);
      });

      it('skips a generated identificatie a client already took', async () => {
        const first = await create();
        const next = first.body.identificatie.replace(/\d{10}$/, (n: string) => String(Number(n) + 1).padStart(10, '0'));
        assert.equal((await create({ identificatie: next })).status, 201);
        const generated = await create();
        assert.equal(generated.status, 201);
        assert.notEqual(generated.body.identificatie, next);
      });

      it('answers a create with the bytes a read of the zaak then gives (the insert travels with the COMMIT, unread)', async () => {
        const hoofdzaak = await create();
        const full = {
          omschrijving: 'Volledig',
          toelichting: 'Elk veld',
          einddatumGepland: '2024-04-01',
          uiterlijkeEinddatumAfdoening: '2024-05-01',
          publicatiedatum: '2024-03-02',
          communicatiekanaal: 'https://kanalen.test/1',
          productenOfDiensten: ['https://producten.test/1'],
          betalingsindicatie: 'gedeeltelijk',
          // An offset and microseconds: the database answers the instant in UTC, to the millisecond.
          laatsteBetaaldatum: '2024-03-05T10:11:12.345678+02:00',
          // Keys out of jsonb's order (it puts shorter ones first): the answer has them as a read does.
          zaakgeometrie: { coordinates: [5.1, 52.1], type: 'Point' },
          verlenging: { reden: 'Drukte', duur: 'P5D' },
          opschorting: { indicatie: true, reden: 'Wacht' },
          selectielijstklasse: 'https://selectielijst.test/1',
          hoofdzaak: hoofdzaak.body.url,
          relevanteAndereZaken: [{ url: hoofdzaak.body.url, aardRelatie: 'vervolg' }],
          kenmerken: [{ kenmerk: 'K1', bron: 'B' }, { kenmerk: 'K2', bron: 'Bron met een langere naam' }],
          archiefnominatie: 'blijvend_bewaren',
          archiefactiedatum: '2030-01-01',
          opdrachtgevendeOrganisatie: RSIN_2,
          processobjectaard: 'Een aard',
          startdatumBewaartermijn: '2024-06-01',
          processobject: { registratie: 'BRK', objecttype: 'Perceel', identificatie: '42', datumkenmerk: '2024-01-01' },
        };
        for (const input of [{}, full, { laatsteBetaaldatum: '2024-03-05T10:11:12+02:00' }, { laatsteBetaaldatum: '2024-03-05t08:11:12z' }]) {
          const created = await create(input);
          assert.equal(created.status, 201, created.text);
          const read = await api.request(`/zaken/${created.body.uuid}`);
          assert.equal(created.text, read.text, JSON.stringify(input));
        }
      });

      it('gives up a block of reserved identificaties when a client gives one of them to a zaak through this instance', async () => {
        // A new instance: its first create reserves one identificatie, its second (right after) two.
        const instance = await startRegistry(Object.create(api.registry.services.storage, { close: { value: async () => undefined } }));
        const create = (overrides: Record<string, unknown> = {}) => instance.request('/zaken', { method: 'POST', json: zaakInput(overrides) });
        try {
          await create();
          const second = await create();
          const reserved = second.body.identificatie.replace(/\d{10}$/, (n: string) => String(Number(n) + 1).padStart(10, '0'));
          const other = await create({ identificatie: 'EIGEN-1' });
          const renamed = await instance.request(`/zaken/${other.body.uuid}`, { method: 'PATCH', json: { identificatie: reserved } });
          assert.equal(renamed.status, 200, renamed.text);
          const generated = await create();
          assert.equal(generated.status, 201, generated.text);
          assert.notEqual(generated.body.identificatie, reserved);
        } finally {
          await instance.close();
        }
      });

      it('answers 409 and stores nothing when another instance gave a reserved identificatie to a client, then generates another', async () => {
        const { storage } = api.registry.services;
        // Two new instances on the same database, which leave it open when they close: neither holds a reservation yet.
        const shared = () => startRegistry(Object.create(storage, { close: { value: async () => undefined } }));
        const [instance, other] = await Promise.all([shared(), shared()]);
        const create = (overrides: Record<string, unknown> = {}) => instance.request('/zaken', { method: 'POST', json: zaakInput(overrides) });
        try {
          // The first create reserves one identificatie; the second, right after it, two, and uses the first.
          await create();
          const second = await create();
          const reserved = second.body.identificatie.replace(/\d{10}$/, (n: string) => String(Number(n) + 1).padStart(10, '0'));
          const taken = await other.request('/zaken', { method: 'POST', json: zaakInput({ identificatie: reserved }) });
          assert.equal(taken.status, 201, taken.text);
          const [{ count: before }] = await storage.knex('zaak').count({ count: '*' });

          const refused = await create({ omschrijving: 'Komt er niet' });
          assert.equal(refused.status, 409, refused.text);
          assert.equal(refused.body.code, 'conflict');
          const [{ count: after }] = await storage.knex('zaak').count({ count: '*' });
          assert.equal(Number(after), Number(before), 'nothing of the refused create was stored');
          assert.equal((await storage.knex('audittrail').where('resource_weergave', reserved).count({ count: '*' }))[0].count, 1, 'only the client zaak has an audit row');

          const retried = await create({ omschrijving: 'Nu wel' });
          assert.equal(retried.status, 201, retried.text);
          assert.notEqual(retried.body.identificatie, reserved);
          assert.equal((await instance.request(`/zaken/${retried.body.uuid}`)).text, retried.text);
        } finally {
          await Promise.all([instance.close(), other.close()]);
        }
      });

      it('reserves identificaties in order, without those a zaak already has, for at most 10 seconds', async () => {
        const { knex } = api.registry.services.storage;
        const reserve = async (n: number) => (await knex.select('identificatie', 'valid_for').from(knex.raw('zaak_reserve_identificaties(?)', [n]))) as { identificatie: string; valid_for: number }[];
        const [first] = await reserve(1);
        const plus = (k: number) => first.identificatie.replace(/\d{10}$/, (n: string) => String(Number(n) + k).padStart(10, '0'));
        assert.match(first.identificatie, /^ZAAK-\d{4}-\d{10}$/);
        assert.ok(first.valid_for > 0 && first.valid_for <= 10, String(first.valid_for));
        for (const k of [1, 3]) assert.equal((await create({ identificatie: plus(k) })).status, 201);
        assert.deepEqual((await reserve(4)).map((row) => row.identificatie), [plus(2), plus(4)]);
      });

      it('creates with a block that arrives already expired (a reservation at the very end of a year) instead of reserving again for ever', async () => {
        const { knex } = api.registry.services.storage;
        const [{ definition }] = (await knex.raw(`select pg_get_functiondef('zaak_reserve_identificaties(int)'::regprocedure) as definition`)).rows;
        // As at 23:59:59.999 on 31 December: every block is valid for no time at all.
        await knex.raw(`create or replace function zaak_reserve_identificaties(n int) returns table (identificatie text, valid_for double precision) language sql as $$
          select 'ZAAK-' || extract(year from clock_timestamp())::int || '-' || lpad(nextval('zaak_identificatie_seq')::text, 10, '0'), 0::double precision
          from generate_series(1, n) $$`);
        const instance = await startRegistry(Object.create(api.registry.services.storage, { close: { value: async () => undefined } }));
        try {
          const created = await Promise.all([1, 2, 3].map(() => instance.request('/zaken', { method: 'POST', json: zaakInput() })));
          assert.deepEqual(created.map((r) => r.status), [201, 201, 201]);
          assert.equal(new Set(created.map((r) => r.body.identificatie)).size, 3);
        } finally {
          await instance.close();
          await knex.raw(definition);
        }
      });

      it('answers 404 for an unknown or malformed uuid', async () => {
        assert.equal((await api.request(`/zaken/${randomUUID()}`)).status, 404);
        const malformed = await api.request('/zaken/not-a-uuid');
        assert.equal(malformed.status, 404);
        assert.equal(malformed.body.code, 'not_found');
      });

      it('answers HEAD with the headers of GET and no body', async () => {
        const created = await create();
        const head = await api.request(`/zaken/${created.body.uuid}`, { method: 'HEAD' });
        const get = await api.request(`/zaken/${created.body.uuid}`);
        assert.equal(head.status, 200);
        assert.equal(head.text, '');
        assert.equal(head.headers.get('content-length'), get.headers.get('content-length'));
        assert.equal(head.headers.get('api-version'), '1.8.0');
      });
    });

    describe('validation', () => {
      const codes = (body: any) => body.invalidParams.map((p: any) => `${p.name}:${p.code}`).sort();

      it('takes null on an optional, non-nullable field as not set (as clients of other ZGW registries send it); required fields still refuse null', async () => {
        const created = await create({ opdrachtgevendeOrganisatie: null, vertrouwelijkheidaanduiding: null, toelichting: null });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.opdrachtgevendeOrganisatie, '');
        assert.equal(created.body.vertrouwelijkheidaanduiding, 'openbaar', 'the default: derived from the zaaktype');
        assert.equal(created.body.toelichting, '');
        const patched = await api.request(`/zaken/${created.body.uuid}`, { method: 'PATCH', json: { omschrijving: 'Nieuw', toelichting: null } });
        assert.equal(patched.status, 200, JSON.stringify(patched.body));
        assert.equal(patched.body.omschrijving, 'Nieuw');
        const required = await create({ bronorganisatie: null });
        assert.equal(required.status, 400);
        assert.deepEqual(codes(required.body), ['bronorganisatie:null']);
      });

      it('names every invalid field with its ZGW code', async () => {
        const response = await api.request('/zaken', {
          method: 'POST',
          json: {
            zaaktype: 'niet een url',
            bronorganisatie: '12345678X',
            verantwoordelijkeOrganisatie: '123456789',
            omschrijving: 'x'.repeat(81),
            vertrouwelijkheidaanduiding: 'supergeheim',
            verlenging: { reden: 'te druk' },
            opschorting: { indicatie: true },
            relevanteAndereZaken: [{ url: 'http://zaken.test/api/v1/zaken/1', aardRelatie: 'bijdrage' }, { url: 'http://x.test/z' }],
            startdatum: '2024-02-30',
            laatsteBetaaldatum: 'gisteren',
          },
        });
        assert.equal(response.status, 400);
        assert.equal(response.body.code, 'invalid');
        assert.equal(response.body.status, 400);
        assert.match(response.body.instance, /^urn:uuid:[0-9a-f-]{36}$/);
        assert.deepEqual(codes(response.body), [
          'bronorganisatie:only-digits',
          'laatsteBetaaldatum:invalid',
          'omschrijving:max_length',
          'opschorting.reden:required',
          'relevanteAndereZaken.1.aardRelatie:required',
          'startdatum:invalid',
          'verantwoordelijkeOrganisatie:invalid',
          'verlenging.duur:required',
          'vertrouwelijkheidaanduiding:invalid_choice',
          'zaaktype:invalid',
        ]);
      });

      it('requires the required fields, treats null groups as omitted and ignores read-only input', async () => {
        const missing = await api.request('/zaken', { method: 'POST', json: {} });
        assert.deepEqual(codes(missing.body), ['bronorganisatie:required', 'startdatum:required', 'verantwoordelijkeOrganisatie:required', 'zaaktype:required']);
        const withReadOnly = await create({ opschorting: null, processobject: null, einddatum: '2020-01-01', uuid: 'x', status: 'http://x' });
        assert.equal(withReadOnly.status, 201);
        assert.equal(withReadOnly.body.einddatum, null);
        assert.notEqual(withReadOnly.body.uuid, 'x');
      });

      it('answers 400, not a database error, for values the database would refuse: an offset past 15:59, a duration longer than its column', async () => {
        const refused = await create({ laatsteBetaaldatum: '2024-03-05T10:11:12+16:00', verlenging: { reden: 'Drukte', duur: `P${'1'.repeat(70)}D` } });
        assert.equal(refused.status, 400, refused.text);
        assert.deepEqual(codes(refused.body), ['laatsteBetaaldatum:invalid', 'verlenging.duur:max_length']);
        assert.equal((await create({ laatsteBetaaldatum: '2024-03-05T10:11:12+15:59' })).status, 201);
      });

      it('answers 400 bad-url when the zaaktype cannot be looked up', async () => {
        const response = await create({ zaaktype: 'http://catalogus.test/api/v1/zaaktypen/onbekend' });
        assert.equal(response.status, 400);
        assert.deepEqual(codes(response.body), ['zaaktype:bad-url']);
      });

      it('checks GeoJSON structure', async () => {
        const bad = await create({ zaakgeometrie: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 2]]] } });
        assert.deepEqual(codes(bad.body), ['zaakgeometrie.coordinates:invalid']);
        const good = await create({ zaakgeometrie: { type: 'Point', coordinates: [5.1, 52.1] } });
        assert.equal(good.status, 201);
        assert.deepEqual(good.body.zaakgeometrie, { type: 'Point', coordinates: [5.1, 52.1] });
      });

      it('rejects a body that is not a JSON object', async () => {
        const array = await api.request('/zaken', { method: 'POST', json: [1] });
        assert.equal(array.status, 400);
        const malformed = await api.request('/zaken', { method: 'POST', body: '{"a":', headers: { 'content-type': 'application/json' } });
        assert.equal(malformed.status, 400);
        assert.equal(malformed.body.code, 'parse_error');
        const xml = await api.request('/zaken', { method: 'POST', body: '<zaak/>', headers: { 'content-type': 'application/xml' } });
        assert.equal(xml.status, 415);
      });
    });

    describe('update and delete', () => {
      it('PUT and PATCH change fields; an omitted zaaktype keeps its derived vertrouwelijkheidaanduiding', async () => {
        const created = await create({ omschrijving: 'eerst' });
        const put = await api.request(`/zaken/${created.body.uuid}`, { method: 'PUT', json: zaakInput({ omschrijving: 'daarna', zaaktype: ZAAKTYPE_GEHEIM }) });
        assert.equal(put.status, 200);
        assert.equal(put.body.omschrijving, 'daarna');
        assert.equal(put.body.vertrouwelijkheidaanduiding, 'geheim', 'a new zaaktype brings its vertrouwelijkheidaanduiding');
        const patch = await api.request(`/zaken/${created.body.uuid}`, { method: 'PATCH', json: { toelichting: 'meer', verlenging: { reden: 'drukte', duur: 'P5D' } } });
        assert.equal(patch.status, 200);
        assert.equal(patch.body.omschrijving, 'daarna');
        assert.deepEqual(patch.body.verlenging, { reden: 'drukte', duur: 'P5D' });
        assert.equal(patch.body.vertrouwelijkheidaanduiding, 'geheim');
        const invalid = await api.request(`/zaken/${created.body.uuid}`, { method: 'PATCH', json: { startdatum: null } });
        assert.equal(invalid.status, 400);
        assert.equal(invalid.body.invalidParams[0].code, 'null');
      });

      it('PUT requires the required fields; changing identificatie to a taken one is refused', async () => {
        const a = await create({ identificatie: 'A' });
        await create({ identificatie: 'B' });
        assert.equal((await api.request(`/zaken/${a.body.uuid}`, { method: 'PUT', json: { omschrijving: 'x' } })).status, 400);
        const clash = await api.request(`/zaken/${a.body.uuid}`, { method: 'PATCH', json: { identificatie: 'B' } });
        assert.equal(clash.status, 400);
        assert.equal(clash.body.invalidParams[0].code, 'identificatie-niet-uniek');
        assert.equal((await api.request(`/zaken/${a.body.uuid}`)).body.identificatie, 'A');
      });

      it('links hoofdzaak and deelzaken, and DELETE removes a hoofdzaak with its deelzaken and rollen', async () => {
        const hoofdzaak = await create();
        const deelzaak = await create({ hoofdzaak: hoofdzaak.body.url });
        assert.equal(deelzaak.status, 201);
        assert.equal(deelzaak.body.hoofdzaak, hoofdzaak.body.url);
        assert.deepEqual((await api.request(`/zaken/${hoofdzaak.body.uuid}`)).body.deelzaken, [deelzaak.body.url]);

        const foreign = await create({ hoofdzaak: 'http://elders.test/zaken/api/v1/zaken/' + randomUUID() });
        assert.equal(foreign.body.invalidParams[0].code, 'no_match');
        const missing = await create({ hoofdzaak: `${api.base}/zaken/${randomUUID()}` });
        assert.equal(missing.body.invalidParams[0].code, 'does_not_exist');

        const knex = api.registry.services.storage.knex;
        const { id } = await knex('zaak').where({ uuid: deelzaak.body.uuid }).first('id');
        await knex('rol').insert({ uuid: randomUUID(), zaak_id: id, betrokkene_type: 'medewerker', roltype: 'http://catalogus.test/roltypen/1' });
        assert.equal((await api.request(`/zaken/${hoofdzaak.body.uuid}`, { method: 'DELETE' })).status, 204);
        assert.equal((await api.request(`/zaken/${deelzaak.body.uuid}`)).status, 404);
        assert.equal((await knex('rol').count({ n: '*' }))[0].n, 0);
      });

      it('DELETE of an unknown zaak is a 404', async () => {
        assert.equal((await api.request(`/zaken/${randomUUID()}`, { method: 'DELETE' })).status, 404);
      });
    });

    describe('list: pagination and filters', () => {
      const ids = (body: any) => body.results.map((z: any) => z.identificatie).sort();
      const list = async (query: string) => {
        const response = await api.request(`/zaken?${query}`);
        assert.equal(response.status, 200, `${query}: ${response.text}`);
        return response.body;
      };

      it('pages 100 at a time with next/previous, honours pageSize, and 404s past the last page', async () => {
        await Promise.all(Array.from({ length: 205 }, (_, i) => create({ identificatie: `P${String(i).padStart(3, '0')}` })));
        const first = await list('');
        assert.equal(first.count, 205);
        assert.equal(first.results.length, 100);
        assert.equal(first.previous, null);
        assert.equal(new URL(first.next).searchParams.get('page'), '2');
        const third = await list('page=3');
        assert.equal(third.results.length, 5);
        assert.equal(third.next, null);
        assert.equal(new URL(third.previous).searchParams.get('page'), '2');
        const small = await list('pageSize=50&page=2&ordering=identificatie');
        assert.equal(small.results[0].identificatie, 'P050');
        assert.equal(new URL(small.next).searchParams.get('pageSize'), '50');
        assert.equal((await api.request('/zaken?page=4')).status, 404);
        assert.equal((await api.request('/zaken?page=0')).status, 400);
        assert.equal((await api.request('/zaken?pageSize=501')).status, 400);
        const descending = await list('ordering=-identificatie&pageSize=2');
        assert.deepEqual(descending.results.map((z: any) => z.identificatie), ['P204', 'P203']);
      });

      it('applies every filter of the standard', async () => {
        const knex = api.registry.services.storage.knex;
        const a = await create({ identificatie: 'A', startdatum: '2020-01-01', registratiedatum: '2020-01-02', einddatumGepland: '2020-06-01', uiterlijkeEinddatumAfdoening: '2020-07-01', archiefnominatie: 'vernietigen', archiefactiedatum: '2030-01-01', archiefstatus: 'nog_te_archiveren', vertrouwelijkheidaanduiding: 'openbaar' });
        const b = await create({ identificatie: 'B', bronorganisatie: RSIN_2, startdatum: '2021-01-01', registratiedatum: '2021-01-02', einddatumGepland: '2021-06-01', uiterlijkeEinddatumAfdoening: '2021-07-01', archiefnominatie: 'blijvend_bewaren', archiefstatus: 'gearchiveerd', archiefactiedatum: '2040-01-01', zaaktype: ZAAKTYPE_GEHEIM });
        const c = await create({ identificatie: 'C', startdatum: '2022-01-01', registratiedatum: '2022-01-02', vertrouwelijkheidaanduiding: 'intern' });
        await knex('zaak').where({ uuid: a.body.uuid }).update({ einddatum: '2020-05-01' });
        const zaakId = async (uuid: string) => (await knex('zaak').where({ uuid }).first('id')).id;
        const rol = async (uuid: string, fields: Record<string, unknown>) =>
          knex('rol').insert({ uuid: randomUUID(), zaak_id: await zaakId(uuid), roltype: 'http://catalogus.test/roltypen/1', ...fields });
        await rol(a.body.uuid, { betrokkene_type: 'natuurlijk_persoon', omschrijving_generiek: 'initiator', betrokkene: 'http://brp.test/personen/1', betrokkene_identificatie: { inpBsn: '111222333', anpIdentificatie: 'ANP1', inpA_nummer: '1234567890' } });
        await rol(b.body.uuid, { betrokkene_type: 'niet_natuurlijk_persoon', omschrijving_generiek: 'belanghebbende', betrokkene_identificatie: { innNnpId: 'NNP1', annIdentificatie: 'ANN1' } });
        await rol(b.body.uuid, { betrokkene_type: 'vestiging', omschrijving_generiek: 'adviseur', betrokkene_identificatie: { vestigingsNummer: 'V1' } });
        await rol(c.body.uuid, { betrokkene_type: 'medewerker', omschrijving_generiek: 'behandelaar', betrokkene_identificatie: { identificatie: 'M1' } });
        await rol(c.body.uuid, { betrokkene_type: 'organisatorische_eenheid', omschrijving_generiek: 'beslisser', betrokkene_identificatie: { identificatie: 'OE1' } });
        // Same key, other type: must not match the medewerker filter.
        await rol(a.body.uuid, { betrokkene_type: 'organisatorische_eenheid', omschrijving_generiek: 'adviseur', betrokkene_identificatie: { identificatie: 'M1' } });

        const expectations: [string, string[]][] = [
          ['identificatie=B', ['B']],
          [`bronorganisatie=${RSIN_2}`, ['B']],
          [`bronorganisatie__in=${RSIN},${RSIN_2}`, ['A', 'B', 'C']],
          [`zaaktype=${encodeURIComponent(ZAAKTYPE_GEHEIM)}`, ['B']],
          ['archiefnominatie=vernietigen', ['A']],
          ['archiefnominatie__in=vernietigen,blijvend_bewaren', ['A', 'B']],
          ['archiefactiedatum=2030-01-01', ['A']],
          ['archiefactiedatum__isnull=true', ['C']],
          ['archiefactiedatum__isnull=false', ['A', 'B']],
          ['archiefactiedatum__lt=2035-01-01', ['A']],
          ['archiefactiedatum__gt=2035-01-01', ['B']],
          ['archiefstatus=gearchiveerd', ['B']],
          ['archiefstatus__in=gearchiveerd,overgedragen', ['B']],
          ['startdatum=2021-01-01', ['B']],
          ['startdatum__gt=2021-01-01', ['C']],
          ['startdatum__gte=2021-01-01', ['B', 'C']],
          ['startdatum__lt=2021-01-01', ['A']],
          ['startdatum__lte=2021-01-01', ['A', 'B']],
          ['registratiedatum=2022-01-02', ['C']],
          ['registratiedatum__gt=2021-01-02', ['C']],
          ['registratiedatum__lt=2021-01-02', ['A']],
          ['einddatum=2020-05-01', ['A']],
          ['einddatum__isnull=true', ['B', 'C']],
          ['einddatum__gt=2020-01-01', ['A']],
          ['einddatum__lt=2020-01-01', []],
          ['einddatumGepland=2021-06-01', ['B']],
          ['einddatumGepland__gt=2020-12-31', ['B']],
          ['einddatumGepland__lt=2020-12-31', ['A']],
          ['uiterlijkeEinddatumAfdoening=2020-07-01', ['A']],
          ['uiterlijkeEinddatumAfdoening__gt=2020-12-31', ['B']],
          ['uiterlijkeEinddatumAfdoening__lt=2020-12-31', ['A']],
          ['rol__betrokkeneType=vestiging', ['B']],
          [`rol__betrokkene=${encodeURIComponent('http://brp.test/personen/1')}`, ['A']],
          ['rol__omschrijvingGeneriek=beslisser', ['C']],
          ['maximaleVertrouwelijkheidaanduiding=intern', ['A', 'C']],
          ['maximaleVertrouwelijkheidaanduiding=openbaar', ['A']],
          ['rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=111222333', ['A']],
          ['rol__betrokkeneIdentificatie__natuurlijkPersoon__anpIdentificatie=ANP1', ['A']],
          ['rol__betrokkeneIdentificatie__natuurlijkPersoon__inpA_nummer=1234567890', ['A']],
          ['rol__betrokkeneIdentificatie__nietNatuurlijkPersoon__innNnpId=NNP1', ['B']],
          ['rol__betrokkeneIdentificatie__nietNatuurlijkPersoon__annIdentificatie=ANN1', ['B']],
          ['rol__betrokkeneIdentificatie__vestiging__vestigingsNummer=V1', ['B']],
          ['rol__betrokkeneIdentificatie__medewerker__identificatie=M1', ['C']],
          ['rol__betrokkeneIdentificatie__organisatorischeEenheid__identificatie=OE1', ['C']],
          ['startdatum__gte=2021-01-01&bronorganisatie=517439943', ['C']],
        ];
        for (const [query, expected] of expectations) assert.deepEqual(ids(await list(query)), expected, query);
        const withRollen = (await list('identificatie=A')).results[0];
        assert.equal(withRollen.rollen.length, 2, 'rollen are part of the representation');

        const orderedByStart = await list('ordering=-startdatum');
        assert.deepEqual(orderedByStart.results.map((z: any) => z.identificatie), ['C', 'B', 'A']);
      });

      it('answers 400 for unknown parameters and invalid filter values', async () => {
        const unknown = await api.request('/zaken?foo=bar&identificatie=x');
        assert.equal(unknown.status, 400);
        assert.deepEqual(unknown.body.invalidParams[0], { name: 'nonFieldErrors', code: 'unknown-parameters', reason: 'Onbekende query parameters: foo' });
        const invalid = await api.request('/zaken?startdatum__gt=morgen&archiefstatus=weg&ordering=kleur');
        assert.deepEqual(invalid.body.invalidParams.map((p: any) => `${p.name}:${p.code}`).sort(), ['archiefstatus:invalid_choice', 'ordering.0:invalid_choice', 'startdatum__gt:invalid']);
      });

      it('POST /zaken/_zoek filters by the body, including uuid__in, zaaktype__in and zaakgeometrie.within', async () => {
        const inside = await create({ identificatie: 'IN', zaakgeometrie: { type: 'Point', coordinates: [5.1, 52.1] } });
        await create({ identificatie: 'OUT', zaakgeometrie: { type: 'Point', coordinates: [6.5, 53.1] } });
        const other = await create({ identificatie: 'GEHEIM', zaaktype: ZAAKTYPE_GEHEIM });
        const search = (json: unknown, query = '') => api.request(`/zaken/_zoek${query}`, { method: 'POST', json });
        const within = { type: 'Polygon', coordinates: [[[5, 52], [5.5, 52], [5.5, 52.5], [5, 52.5], [5, 52]]] };
        assert.deepEqual(ids((await search({ zaakgeometrie: { within } })).body), ['IN']);
        assert.deepEqual(ids((await search({ uuid__in: [inside.body.uuid, other.body.uuid] })).body), ['GEHEIM', 'IN']);
        assert.deepEqual(ids((await search({ zaaktype__in: [ZAAKTYPE_GEHEIM] })).body), ['GEHEIM']);
        assert.deepEqual(ids((await search({ identificatie: 'OUT' })).body), ['OUT']);
        const paged = await search({}, '?pageSize=1&page=2');
        assert.equal(paged.body.count, 3);
        assert.equal(paged.body.results.length, 1);
        const unknown = await search({ kleur: 'rood' });
        assert.equal(unknown.status, 400);
        assert.equal(unknown.body.invalidParams[0].code, 'unknown-parameters');
        const invalid = await search({ zaaktype__in: 'geen lijst' });
        assert.equal(invalid.status, 400);
        assert.equal(invalid.body.invalidParams[0].name, 'zaaktype__in');
      });
    });
  });
}
