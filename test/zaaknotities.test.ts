import assert from 'node:assert/strict';
import { BACKENDS } from './helpers/backends.js';
import { startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

const params = (body: any) => body.invalidParams.map((p: any) => [p.name, p.code]);
const urls = (body: any) => body.results.map((n: any) => n.url);

/** /zaaknotities (Zaken API 1.7): the six operations, their filters and paging, and what a note's zaak does to it. */
for (const backend of BACKENDS) {
  describe(`ZaakNotities on ${backend.name}`, () => {
    let api: TestServer;
    let zaak: any;
    const knex = () => api.registry.services.storage.knex;
    const notitie = (overrides: Record<string, unknown> = {}) =>
      api.request('/zaaknotities', { method: 'POST', json: { gerelateerdAan: zaak.url, onderwerp: 'Telefoon', tekst: 'Burger belde over de aanvraag.', ...overrides } });
    const created = async (overrides: Record<string, unknown> = {}) => {
      const response = await notitie(overrides);
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const list = async (query: string) => {
      const response = await api.request(`/zaaknotities${query}`);
      assert.equal(response.status, 200, `${query}: ${response.text}`);
      return response.body;
    };
    /** What a write must leave untouched when it is refused: the notes and the audit trail. */
    const stored = async () => ({
      notities: await knex()('zaaknotitie').orderBy('id').select('uuid', 'onderwerp', 'tekst', 'status', 'wijzigingsdatum'),
      trail: Number((await knex()('audittrail').count({ n: '*' }))[0].n),
    });

    before(async () => {
      api = await startRegistry(await backend.open());
    });
    after(async () => api?.close());
    beforeEach(async () => {
      await knex()('zaak').delete();
      zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
    });

    it('creates a note with the defaults and the server’s timestamps, and reads it back', async () => {
      const response = await notitie({ aanmaakdatum: '2000-01-01T00:00:00Z', wijzigingsdatum: '2000-01-01T00:00:00Z' });
      assert.equal(response.status, 201, response.text);
      const body = response.body;
      assert.equal(response.headers.get('location'), body.url);
      assert.match(body.url, new RegExp(`^${api.base}/zaaknotities/[0-9a-f-]{36}$`));
      assert.deepEqual(Object.keys(body), ['url', 'onderwerp', 'tekst', 'aangemaaktDoor', 'notitieType', 'status', 'aanmaakdatum', 'wijzigingsdatum', 'gerelateerdAan']);
      assert.deepEqual(
        { ...body, url: undefined, aanmaakdatum: undefined, wijzigingsdatum: undefined },
        { url: undefined, onderwerp: 'Telefoon', tekst: 'Burger belde over de aanvraag.', aangemaaktDoor: '', notitieType: 'intern', status: 'concept', aanmaakdatum: undefined, wijzigingsdatum: undefined, gerelateerdAan: zaak.url },
      );
      assert.notEqual(body.aanmaakdatum.slice(0, 4), '2000', 'read-only timestamps sent by the client are ignored');
      assert.equal(body.wijzigingsdatum, body.aanmaakdatum);
      const read = await api.request(body.url);
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, body);
      const extern = await created({ notitieType: 'extern', status: 'definitief', aangemaaktDoor: 'medewerker-1' });
      assert.deepEqual([extern.notitieType, extern.status, extern.aangemaaktDoor], ['extern', 'definitief', 'medewerker-1']);
      assert.equal((await api.request(`/zaaknotities/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`)).status, 404);
    });

    it('changes a concept note with PUT and PATCH, renewing only wijzigingsdatum; moves it to another zaak', async () => {
      const note = await created({ aangemaaktDoor: 'medewerker-1' });
      // A known past moment, so that renewal shows whatever the clock's resolution.
      await knex()('zaaknotitie').update({ wijzigingsdatum: '2020-01-01T00:00:00Z' });
      const patched = await api.request(note.url, { method: 'PATCH', json: { tekst: 'Terugbellen.' } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual([patched.body.tekst, patched.body.onderwerp, patched.body.aangemaaktDoor], ['Terugbellen.', 'Telefoon', 'medewerker-1']);
      assert.equal(patched.body.aanmaakdatum, note.aanmaakdatum);
      assert.ok(patched.body.wijzigingsdatum > '2020-01-01T00:00:00.000Z', patched.body.wijzigingsdatum);
      const other = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
      const put = await api.request(note.url, { method: 'PUT', json: { gerelateerdAan: other.url, onderwerp: 'Brief', tekst: 'Brief verstuurd.', status: 'definitief' } });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual([put.body.onderwerp, put.body.status, put.body.gerelateerdAan], ['Brief', 'definitief', other.url]);
      assert.deepEqual(urls(await list(`?gerelateerdAan=${encodeURIComponent(other.url)}`)), [note.url]);
      assert.equal((await list(`?gerelateerdAan=${encodeURIComponent(zaak.url)}`)).count, 0);
    });

    it('refuses to change a definitief note (400 on status, nothing written), and still deletes it', async () => {
      const note = await created({ status: 'definitief' });
      const before = await stored();
      for (const [method, json] of [['PATCH', { tekst: 'Toch anders.' }], ['PATCH', { status: 'concept' }], ['PUT', { gerelateerdAan: zaak.url, onderwerp: 'X', tekst: 'Y' }]] as const) {
        const refused = await api.request(note.url, { method, json });
        assert.equal(refused.status, 400, `${method}: ${refused.text}`);
        assert.equal(refused.headers.get('content-type'), 'application/problem+json');
        assert.deepEqual(params(refused.body), [['status', 'invalid']]);
      }
      assert.deepEqual(await stored(), before);
      assert.equal((await api.request(note.url, { method: 'DELETE' })).status, 204);
      assert.equal((await api.request(note.url)).status, 404);
      assert.equal((await api.request(note.url, { method: 'DELETE' })).status, 404);
    });

    it('answers bad input with problem+json 400 and invalidParams, writing nothing', async () => {
      const other = 'http://elders.test/zaken/api/v1/zaken/00000000-0000-4000-8000-000000000000';
      const gone = zaak.url.replace(/[0-9a-f-]{36}$/, '00000000-0000-4000-8000-000000000000');
      const note = await created();
      const before = await stored();
      const cases: [string, string, unknown, [string, string][]][] = [
        ['POST', '/zaaknotities', {}, [['gerelateerdAan', 'required'], ['onderwerp', 'required'], ['tekst', 'required']]],
        ['POST', '/zaaknotities', { gerelateerdAan: zaak.url, onderwerp: '', tekst: '' }, [['onderwerp', 'blank'], ['tekst', 'blank']]],
        ['POST', '/zaaknotities', { gerelateerdAan: zaak.url, onderwerp: 'x'.repeat(256), tekst: 't', aangemaaktDoor: 'y'.repeat(256) }, [['onderwerp', 'max_length'], ['aangemaaktDoor', 'max_length']]],
        ['POST', '/zaaknotities', { gerelateerdAan: zaak.url, onderwerp: 'o', tekst: 't', notitieType: 'geheim', status: 'klaar' }, [['notitieType', 'invalid_choice'], ['status', 'invalid_choice']]],
        ['POST', '/zaaknotities', { gerelateerdAan: 'geen url', onderwerp: 'o', tekst: 't' }, [['gerelateerdAan', 'invalid']]],
        ['POST', '/zaaknotities', { gerelateerdAan: other, onderwerp: 'o', tekst: 't' }, [['gerelateerdAan', 'no_match']]],
        ['POST', '/zaaknotities', { gerelateerdAan: gone, onderwerp: 'o', tekst: 't' }, [['gerelateerdAan', 'does_not_exist']]],
        ['POST', '/zaaknotities', { gerelateerdAan: `${api.base}/statussen/00000000-0000-4000-8000-000000000000`, onderwerp: 'o', tekst: 't' }, [['gerelateerdAan', 'no_match']]],
        ['PUT', note.url, { onderwerp: 'o', tekst: 't' }, [['gerelateerdAan', 'required']]],
        ['PATCH', note.url, { gerelateerdAan: other }, [['gerelateerdAan', 'no_match']]],
        ['PATCH', note.url, { onderwerp: null }, [['onderwerp', 'null']]],
        ['PATCH', note.url, { tekst: '' }, [['tekst', 'blank']]],
      ];
      for (const [method, path, json, expected] of cases) {
        const response = await api.request(path, { method, json });
        assert.equal(response.status, 400, `${method} ${JSON.stringify(json)}: ${response.text}`);
        assert.equal(response.headers.get('content-type'), 'application/problem+json');
        assert.deepEqual(params(response.body), expected, `${method} ${JSON.stringify(json)}`);
      }
      assert.deepEqual(await stored(), before);
    });

    it('filters the list on every parameter of the contract, in SQL', async () => {
      const other = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
      const a = await created({ onderwerp: 'Telefoon 50%', tekst: 'Belde om 9 uur.', aangemaaktDoor: 'Medewerker_A' });
      const b = await created({ onderwerp: 'Brief', tekst: 'Brief verstuurd.', aangemaaktDoor: 'medewerkerXb', notitieType: 'extern', status: 'definitief' });
      const c = await created({ gerelateerdAan: other.url, onderwerp: 'Telefoon', tekst: 'Geen gehoor.', aangemaaktDoor: 'balie' });
      const moments = [
        [a, '2024-03-01T10:00:00Z', '2024-03-05T10:00:00Z'],
        [b, '2024-03-02T10:00:00Z', '2024-03-02T10:00:00Z'],
        [c, '2024-03-03T10:00:00.123Z', '2024-03-04T10:00:00Z'],
      ] as const;
      for (const [note, aanmaakdatum, wijzigingsdatum] of moments) await knex()('zaaknotitie').where({ uuid: note.url.split('/').at(-1) }).update({ aanmaakdatum, wijzigingsdatum });
      const q = encodeURIComponent;
      const expectations: [string, any[]][] = [
        ['', [a, b, c]],
        [`?gerelateerdAan=${q(zaak.url)}`, [a, b]],
        [`?gerelateerdAan=${q('http://elders.test/zaken/api/v1/zaken/' + zaak.uuid)}`, []],
        ['?aangemaaktDoor=balie', [c]],
        ['?aangemaaktDoor=Balie', []],
        ['?aangemaaktDoor__icontains=MEDEWERKER', [a, b]],
        // `_` and `%` are themselves, not LIKE wildcards.
        ['?aangemaaktDoor__icontains=r_', [a]],
        ['?onderwerp=Telefoon', [c]],
        ['?onderwerp__icontains=telefoon', [a, c]],
        ['?onderwerp__icontains=50%25', [a]],
        ['?onderwerp__icontains=0%25', [a]],
        ['?onderwerp__icontains=%25%25', []],
        ['?tekst=Brief%20verstuurd.', [b]],
        ['?tekst__icontains=GEHOOR', [c]],
        ['?notitieType=extern', [b]],
        ['?notitieType=intern', [a, c]],
        ['?status=definitief', [b]],
        ['?status=concept', [a, c]],
        [`?aanmaakdatum=${q('2024-03-03T10:00:00.123Z')}`, [c]],
        [`?aanmaakdatum=${q('2024-03-02T11:00:00+01:00')}`, [b]],
        [`?aanmaakdatum__gt=${q('2024-03-02T10:00:00Z')}`, [c]],
        [`?aanmaakdatum__gte=${q('2024-03-02T10:00:00Z')}`, [b, c]],
        [`?aanmaakdatum__lt=${q('2024-03-02T10:00:00Z')}`, [a]],
        [`?aanmaakdatum__lte=${q('2024-03-02T10:00:00Z')}`, [a, b]],
        [`?wijzigingsdatum=${q('2024-03-05T10:00:00Z')}`, [a]],
        [`?wijzigingsdatum__gt=${q('2024-03-02T10:00:00Z')}`, [a, c]],
        [`?wijzigingsdatum__gte=${q('2024-03-04T10:00:00Z')}`, [a, c]],
        [`?wijzigingsdatum__lt=${q('2024-03-04T10:00:00Z')}`, [b]],
        [`?wijzigingsdatum__lte=${q('2024-03-04T10:00:00Z')}`, [b, c]],
        [`?onderwerp__icontains=telefoon&status=concept&gerelateerdAan=${q(zaak.url)}`, [a]],
      ];
      for (const [query, expected] of expectations) {
        const body = await list(query);
        assert.deepEqual(urls(body), expected.map((n) => n.url), query);
        assert.equal(body.count, expected.length, query);
      }
      // A timestamp as a client reads it finds its note again.
      const shown = (await api.request(c.url)).body.aanmaakdatum;
      assert.deepEqual(urls(await list(`?aanmaakdatum=${q(shown)}`)), [c.url]);

      for (const [query, name, code] of [
        ['?notitieType=geheim', 'notitieType', 'invalid_choice'],
        ['?status=klaar', 'status', 'invalid_choice'],
        ['?aanmaakdatum__gt=gisteren', 'aanmaakdatum__gt', 'invalid'],
        ['?wijzigingsdatum=2024-13-01T00:00:00Z', 'wijzigingsdatum', 'invalid'],
        ['?gerelateerdAan=geen-url', 'gerelateerdAan', 'invalid'],
        ['?zaak=' + q(zaak.url), 'nonFieldErrors', 'unknown-parameters'],
      ]) {
        const response = await api.request(`/zaaknotities${query}`);
        assert.equal(response.status, 400, query);
        assert.deepEqual(params(response.body), [[name, code]], query);
      }
    });

    it('pages the list with page and pageSize, oldest first', async () => {
      const notes = [];
      for (let i = 0; i < 5; i++) notes.push(await created({ onderwerp: `Notitie ${i}` }));
      const first = await list('?pageSize=2');
      assert.equal(first.count, 5);
      assert.deepEqual(urls(first), notes.slice(0, 2).map((n) => n.url));
      assert.equal(first.previous, null);
      assert.equal(new URL(first.next).searchParams.get('page'), '2');
      const last = await list('?pageSize=2&page=3');
      assert.deepEqual(urls(last), [notes[4].url]);
      assert.equal(last.next, null);
      assert.equal(new URL(last.previous).searchParams.get('page'), '2');
      assert.equal((await api.request('/zaaknotities?pageSize=2&page=4')).status, 404);
      assert.equal((await api.request('/zaaknotities?pageSize=501')).status, 400);
    });

    it('records every change in the zaak’s audit trail, and renews the zaak’s revision', async () => {
      const revision = async () => String((await knex()('zaak_revision').join('zaak', 'zaak.id', 'zaak_revision.zaak_id').where('zaak.uuid', zaak.uuid).first('revision')).revision);
      let seen = await revision();
      const renewed = async (what: string) => {
        const now = await revision();
        assert.notEqual(now, seen, `${what} renews the zaak's revision`);
        seen = now;
      };
      const note = await created();
      await renewed('create');
      const patched = (await api.request(note.url, { method: 'PATCH', json: { onderwerp: 'Terugbelverzoek' }, headers: { 'x-audit-toelichting': 'typfout' } })).body;
      await renewed('update');
      assert.equal((await api.request(note.url, { method: 'DELETE' })).status, 204);
      await renewed('delete');
      const trail = (await api.request(`/zaken/${zaak.uuid}/audittrail`)).body.filter((entry: any) => entry.resource === 'zaaknotitie');
      assert.deepEqual(
        trail.map((entry: any) => [entry.actie, entry.resultaat, entry.hoofdObject, entry.resourceUrl, entry.resourceWeergave, entry.toelichting]),
        [
          ['create', 201, zaak.url, note.url, 'Telefoon', ''],
          ['partial_update', 200, zaak.url, note.url, 'Terugbelverzoek', 'typfout'],
          ['destroy', 204, zaak.url, note.url, 'Terugbelverzoek', ''],
        ],
      );
      assert.deepEqual(trail.map((entry: any) => [entry.wijzigingen.oud, entry.wijzigingen.nieuw]), [[null, note], [note, patched], [patched, null]]);
    });

    it('goes with its zaak when the zaak is destroyed (zrc-023)', async () => {
      const other = (await api.request('/zaken', { method: 'POST', json: zaakInput() })).body;
      const gone = await created();
      const kept = await created({ gerelateerdAan: other.url });
      assert.equal((await api.request(zaak.url, { method: 'DELETE' })).status, 204);
      assert.equal((await api.request(gone.url)).status, 404);
      assert.deepEqual(urls(await list('')), [kept.url]);
      assert.deepEqual((await knex()('zaaknotitie').select('uuid')).map((r: any) => r.uuid), [kept.url.split('/').at(-1)]);
    });

    it('is written and read through services.zaken too, with the same rules', async () => {
      const services = api.registry.services;
      const scope = { baseUrl: api.base };
      const note = await services.zaken.createRecord(scope, 'zaaknotitie', { gerelateerdAan: zaak.url, onderwerp: 'Intern overleg', tekst: 'Besproken.', status: 'definitief' });
      assert.equal(note.gerelateerdAan, zaak.url);
      assert.deepEqual(await services.zaken.records(scope, 'zaaknotitie', zaak.uuid), [note]);
      await assert.rejects(services.zaken.updateRecord(scope, 'zaaknotitie', String(note.url), { tekst: 'Anders.' }), (error: any) => {
        assert.deepEqual(error.invalidParams?.map((p: any) => [p.name, p.code]), [['status', 'invalid']]);
        return true;
      });
      await assert.rejects(services.zaken.createRecord(scope, 'zaaknotitie', { gerelateerdAan: zaak.url, onderwerp: '', tekst: 't' }), (error: any) => {
        assert.deepEqual(error.invalidParams?.map((p: any) => [p.name, p.code]), [['onderwerp', 'blank']]);
        return true;
      });
      await services.zaken.destroyRecord(scope, 'zaaknotitie', String(note.url));
      assert.deepEqual(await services.zaken.records(scope, 'zaaknotitie', zaak.uuid), []);
      const trail = (await api.request(`/zaken/${zaak.uuid}/audittrail`)).body.filter((entry: any) => entry.resource === 'zaaknotitie');
      assert.deepEqual(trail.map((entry: any) => [entry.actie, entry.applicatieId]), [['create', 'zaakregister'], ['destroy', 'zaakregister']]);
    });

    it('documents the six operations under the contract’s operationIds and schemas, without HEAD', async () => {
      const document = (await api.request('/openapi.json')).body;
      const collection = document.paths['/zaaknotities'];
      const detail = document.paths['/zaaknotities/{uuid}'];
      assert.deepEqual(
        [collection.get, collection.post, detail.get, detail.put, detail.patch, detail.delete].map((o: any) => o.operationId),
        ['zaaknotitie_list', 'zaaknotitie_create', 'zaaknotitie_read', 'zaaknotitie_update', 'zaaknotitie_partial_update', 'zaaknotitie_delete'],
      );
      assert.equal(detail.head, undefined);
      const body = (operation: any) => operation.requestBody.content['application/json'].schema.$ref;
      assert.deepEqual([body(collection.post), body(detail.put), body(detail.patch)], ['#/components/schemas/ZaakNotitieRequest', '#/components/schemas/ZaakNotitieRequest', '#/components/schemas/PatchedZaakNotitieRequest']);
      for (const name of ['ZaakNotitie', 'ZaakNotitieRequest', 'PatchedZaakNotitieRequest', 'NotitieTypeEnum', 'StatusEnum']) assert.ok(document.components.schemas[name], name);
      const filters = collection.get.parameters.map((p: any) => p.name);
      for (const name of ['gerelateerdAan', 'aangemaaktDoor__icontains', 'aanmaakdatum__lte', 'wijzigingsdatum__gt', 'tekst__icontains', 'notitieType', 'status', 'page', 'pageSize']) {
        assert.ok(filters.includes(name), name);
      }
      // The contract's scopes: reading with zaken.lezen, every change with zaken.bijwerken alone.
      const scopes = (operation: any) => operation.security[0]['JWT-Claims'];
      assert.deepEqual([collection.get, detail.get].map(scopes), [['zaken.lezen'], ['zaken.lezen']]);
      assert.deepEqual([collection.post, detail.put, detail.patch, detail.delete].map(scopes), Array(4).fill(['zaken.bijwerken']));
    });
  });
}
