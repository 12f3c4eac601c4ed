import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { loadContract } from '../../scripts/contract.js';
import { testApps } from '../../test/helpers/apps.js';
import { BACKENDS } from '../../test/helpers/backends.js';
import { TYPES, ZAAKTYPE, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from '../../test/helpers/registry.js';
import { createZaakFamily, type ZaakFamily } from '../../test/helpers/zaak-family.js';
import { ATTRIBUTES, GROUPS, parseFields, project } from './fields.js';
import { SCHEMA_NAMES } from './openapi.js';
import { expand, type ExpandTree } from './index.js';

const CONTRACT = fileURLToPath(new URL('../../reference/zaken-api-1.8.0.openapi.yaml', import.meta.url));
const PROCESSOBJECT = { registratie: 'BRK', objecttype: 'Perceel', identificatie: '42', datumkenmerk: '2024-01-01' };

/** A tree's paths, parents first. */
const paths = (tree: ExpandTree, prefix = ''): string[] => [...tree].flatMap(([field, subtree]) => [prefix + field, ...paths(subtree, `${prefix}${field}.`)]);

describe('fields: parsing and trimming', () => {
  it('knows the attributes and groups of every resource as the 1.8.0 contract has them', () => {
    const schemas = loadContract(CONTRACT).components.schemas;
    const resolve = (schema: any): any => (schema?.$ref ? resolve(schemas[schema.$ref.split('/').pop()]) : schema);
    const propertiesOf = (schema: any): Record<string, any> => {
      const resolved = resolve(schema);
      return resolved?.allOf ? Object.assign({}, ...resolved.allOf.map(propertiesOf)) : (resolved?.properties ?? {});
    };
    const named = SCHEMA_NAMES;
    // The identification groups come from the type-specific schemas (`natuurlijk_persoon_Rol`, `pand_ZaakObject`).
    const typed = { rol: ['betrokkeneIdentificatie'], zaakobject: ['objectIdentificatie'] } as Record<string, string[]>;
    for (const [kind, schema] of Object.entries(named)) {
      const properties = propertiesOf(schemas[schema]);
      assert.deepEqual([...ATTRIBUTES[kind as keyof typeof named]].sort(), [...Object.keys(properties), ...(typed[kind] ?? [])].sort(), kind);
      for (const [group, names] of Object.entries(GROUPS[kind as keyof typeof named] ?? {})) {
        if (names === null) continue;
        const value = resolve(properties[group]);
        assert.deepEqual(names, Object.keys(propertiesOf(value.type === 'array' ? value.items : value)), `${kind}.${group}`);
      }
    }
  });

  it('turns object entries and dotted names into an expand tree, and keeps the rest as a selection', () => {
    const parsed = parseFields(['url', 'status.statustype.omschrijving', { status: ['datumStatusGezet'], rollen: ['*'] }, 'processobject.identificatie', 'zaaktype.catalogus.domein']);
    assert.deepEqual(paths(parsed.tree), ['status', 'status.statustype', 'rollen', 'zaaktype', 'zaaktype.catalogus']);
    assert.deepEqual([...parsed.zaakAttributes!], ['url', 'status', 'rollen', 'processobject', 'zaaktype']);
    const zaak = {
      url: 'u',
      uuid: 'x',
      status: 's',
      rollen: ['r'],
      processobject: PROCESSOBJECT,
      _expand: { status: { url: 's', datumStatusGezet: 'd', statustype: 'st', statustoelichting: 't', _expand: { statustype: { url: 'st', omschrijving: 'o', volgnummer: 1 } } }, rollen: [{ url: 'r', roltype: 'rt' }] },
    };
    assert.deepEqual(JSON.stringify(project(zaak, parsed.selection)), JSON.stringify({
      url: 'u',
      status: 's',
      rollen: ['r'],
      processobject: { identificatie: '42' },
      _expand: { status: { statustype: 'st', datumStatusGezet: 'd', _expand: { statustype: { omschrijving: 'o' } } }, rollen: [{ url: 'r', roltype: 'rt' }] },
    }), 'in the order fields names them, a relation with its URL, _expand last');
    assert.equal(parseFields(['*']).zaakAttributes, undefined, '* uses every attribute');
  });

  it('answers every mistake at once, each with its dotted path', () => {
    assert.throws(
      () => parseFields(['identificatei', { status: ['volgnummer', 'datumStatusGezet'], processobject: ['nummer'] }, 'verlenging.duur.x', 3, { resultaat: [] }]),
      (error: any) => {
        assert.equal(error.status, 400);
        assert.equal(error.code, 'invalid');
        assert.deepEqual(error.invalidParams.map((p: any) => [p.name, p.code, p.reason.split(':')[0]]), [
          ['fields', 'unknown-field', 'identificatei'],
          ['fields', 'unknown-field', 'status.volgnummer'],
          ['fields', 'unknown-field', 'processobject.nummer'],
          ['fields', 'invalid', 'verlenging.duur'],
          ['fields', 'invalid', '3 is geen attribuutnaam of object met attribuutnamen.'],
          ['fields', 'invalid', 'resultaat'],
        ]);
        assert.match(error.invalidParams[0].reason, /bedoelt u identificatie\?/);
        return true;
      },
    );
    assert.throws(() => parseFields([]), (error: any) => error.invalidParams[0].name === 'fields');
  });
});

for (const backend of BACKENDS) {
  describe(`fields in _zoek on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    let family: ZaakFamily;
    let hoofdzaak: any;
    const as = async (clientId: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), ...(await apps.headers(clientId)) } });
    const get = async (path: string) => (await as('alles', path)).body;
    const post = async (path: string, json: unknown) => {
      const response = await as('alles', path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const search = (json: Record<string, unknown>, clientId: 'alles' | 'beperkt' = 'alles') => as(clientId, '/zaken/_zoek', { method: 'POST', json });
    const found = async (json: Record<string, unknown>, clientId: 'alles' | 'beperkt' = 'alles') => {
      const response = await search({ uuid__in: [family.zaak.uuid], ...json }, clientId);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.results.length, 1);
      return response.body.results[0];
    };
    const without = ({ _expand, ...resource }: any) => resource;

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [expand()], authorization: apps.authorization });
      hoofdzaak = await post('/zaken', zaakInput({ zaaktype: ZAAKTYPE_GEHEIM }));
      family = await createZaakFamily({ ...api, request: (path, init = {}) => as('alles', path, init) }, { hoofdzaak: hoofdzaak.url, processobject: PROCESSOBJECT });
    });
    after(async () => api?.close());

    it('trims each zaak of the page to the named attributes, in the order named', async () => {
      const zaak = await found({ fields: ['identificatie', 'url', 'status', 'processobject.identificatie'] });
      assert.equal(JSON.stringify(zaak), JSON.stringify({ identificatie: family.zaak.identificatie, url: family.zaak.url, status: family.status.url, processobject: { identificatie: '42' } }));
      const page = await search({ fields: ['uuid'] });
      assert.ok(page.body.count >= 2);
      assert.deepEqual(page.body.results.map((z: any) => Object.keys(z)), page.body.results.map(() => ['uuid']), 'every zaak of the page');
      assert.ok('next' in page.body && 'previous' in page.body, 'the page envelope stays');
    });

    it('"*" keeps every attribute: the zaak as the search without fields answers it', async () => {
      const full = await found({});
      assert.deepEqual(await found({ fields: ['*'] }), full);
      assert.deepEqual(full, await get(family.zaak.url));
    });

    it('expands a relation named as an object, keeps its URL attribute and trims what it expands, any level deep', async () => {
      const zaak = await found({
        fields: ['url', { status: ['datumStatusGezet', { statustype: ['omschrijving'] }], rollen: ['betrokkeneType', { betrokkeneIdentificatie: ['inpBsn'] }], resultaat: ['*'], hoofdzaak: ['identificatie'] }],
      });
      assert.equal(
        JSON.stringify(zaak),
        JSON.stringify({
          url: family.zaak.url,
          status: family.status.url,
          rollen: [family.rol.url],
          resultaat: family.resultaat.url,
          hoofdzaak: hoofdzaak.url,
          _expand: {
            status: { datumStatusGezet: family.status.datumStatusGezet, statustype: TYPES.statustypeStart, _expand: { statustype: { omschrijving: (await api.registry.services.catalog.get('statustype', TYPES.statustypeStart)).omschrijving } } },
            rollen: [{ betrokkeneType: 'natuurlijk_persoon', betrokkeneIdentificatie: { inpBsn: '111222333' } }],
            resultaat: await get(family.resultaat.url),
            hoofdzaak: { identificatie: hoofdzaak.identificatie },
          },
        }),
      );
      assert.deepEqual(without((await found({ fields: [{ zaaktype: ['*'] }] }))._expand.zaaktype), without((await found({ expand: 'zaaktype' }))._expand.zaaktype));
      assert.equal((await found({ fields: [{ zaaktype: ['url'] }] }))._expand.zaaktype.url, ZAAKTYPE);
    });

    it('answers an empty relation as expand does, {} or []', async () => {
      const bare = await post('/zaken', zaakInput());
      const response = await search({ uuid__in: [bare.uuid], fields: [{ status: ['url'], deelzaken: ['url'], hoofdzaak: ['url'] }] });
      assert.deepEqual(response.body.results[0], { status: null, deelzaken: [], hoofdzaak: null, _expand: { status: {}, deelzaken: [], hoofdzaak: {} } });
    });

    it('never shows through fields a zaak the client may not read', async () => {
      const zaak = await found({ fields: ['url', { hoofdzaak: ['zaaktype'] }] }, 'beperkt');
      assert.deepEqual(zaak._expand.hoofdzaak, {}, 'the geheime hoofdzaak stays empty');
      assert.equal((await found({ fields: [{ hoofdzaak: ['zaaktype'] }] }))._expand.hoofdzaak.zaaktype, ZAAKTYPE_GEHEIM);
    });

    it('answers a name the resource lacks with 400, naming fields and the dotted path, before anything is read', async () => {
      const knex = api.registry.services.storage.knex;
      let statements = 0;
      const count = () => statements++;
      knex.on('query', count);
      const response = await search({ fields: ['url', 'datumstatusgezet', { status: ['volgnummer'], zaaktype: ['omschrijving'] }] });
      knex.off('query', count);
      assert.equal(response.status, 400, response.text);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      assert.equal(response.body.code, 'invalid');
      assert.deepEqual(response.body.invalidParams.map((p: any) => [p.name, p.code, p.reason.split(':')[0]]), [
        ['fields', 'unknown-field', 'datumstatusgezet'],
        ['fields', 'unknown-field', 'status.volgnummer'],
      ]);
      assert.equal(statements, 0);
      for (const fields of [[], 'url', [['url']], [{ status: 'url' }], [{ '*': ['url'] }], [null]]) {
        const wrong = await search({ fields });
        assert.equal(wrong.status, 400, `${JSON.stringify(fields)}: ${wrong.text}`);
        assert.equal(wrong.body.invalidParams[0].name.split('.')[0], 'fields', JSON.stringify(fields));
      }
    });

    it('answers fields together with expand, of the body or the query, with 400 naming both', async () => {
      for (const [path, json] of [
        ['/zaken/_zoek', { fields: ['url'], expand: 'status' }],
        ['/zaken/_zoek?expand=status', { fields: ['url'] }],
      ] as const) {
        const response = await as('alles', path, { method: 'POST', json });
        assert.equal(response.status, 400, `${path}: ${response.text}`);
        assert.deepEqual(response.body.invalidParams.map((p: any) => [p.name, p.code]), [['fields', 'fields-and-expand'], ['expand', 'fields-and-expand']]);
      }
    });

    it('answers an object on an attribute that links nothing as expand does, 404 invalid-expand-field, naming fields', async () => {
      for (const fields of [[{ identificatie: ['x'] }], [{ status: [{ datumStatusGezet: ['x'] }] }], ['rollen.omschrijving.x']]) {
        const response = await search({ fields });
        assert.equal(response.status, 404, response.text);
        assert.equal(response.body.code, 'invalid-expand-field');
        assert.equal(response.body.invalidParams[0].name, 'fields');
      }
    });

    it('expands a zaak of the page reached again through a relation with every attribute named, however trimmed the page', async () => {
      const hoofd = await post('/zaken', zaakInput());
      const hoofdStatus = await post('/statussen', { zaak: hoofd.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-02T10:00:00Z' });
      const deel = await post('/zaken', zaakInput({ hoofdzaak: hoofd.url }));
      const response = await search({ uuid__in: [hoofd.uuid, deel.uuid], fields: ['url', { hoofdzaak: ['url', 'status'] }] });
      assert.equal(response.status, 200, response.text);
      const byUrl = new Map(response.body.results.map((z: any) => [z.url, z]));
      assert.deepEqual(byUrl.get(deel.url), { url: deel.url, hoofdzaak: hoofd.url, _expand: { hoofdzaak: { url: hoofd.url, status: hoofdStatus.url } } });
      assert.deepEqual(byUrl.get(hoofd.url), { url: hoofd.url, hoofdzaak: null, _expand: { hoofdzaak: {} } });
    });

    it('documents fields in the _zoek body of the served contract', async () => {
      const document = (await api.request('/openapi.json')).body;
      const schema = document.components.schemas.ZaakZoek.properties.fields;
      assert.equal(schema.type, 'array');
      assert.match(schema.description, /mutual exclusive/);
    });
  });

  describe(`fields in _zoek on ${backend.name}: what a trimmed page costs`, () => {
    let api: TestServer;
    const statements = async (json: Record<string, unknown>) => {
      const knex = api.registry.services.storage.knex;
      const sql: string[] = [];
      const listener = (query: { sql: string }) => sql.push(query.sql);
      knex.on('query', listener);
      const response = await api.request('/zaken/_zoek', { method: 'POST', json: { startdatum: '2030-01-01', ...json } });
      knex.off('query', listener);
      assert.equal(response.status, 200, response.text);
      return { sql, results: response.body.results };
    };
    const READS_ROLLEN = /from "?rol"? r/;

    before(async () => {
      api = await startRegistry(await backend.open(), { plugins: [expand()] });
      for (let i = 0; i < 20; i++) {
        const zaak = (await api.request('/zaken', { method: 'POST', json: zaakInput({ startdatum: '2030-01-01', processobject: PROCESSOBJECT }) })).body;
        await api.request('/rollen', { method: 'POST', json: { zaak: zaak.url, betrokkeneType: 'medewerker', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'x', betrokkeneIdentificatie: { identificatie: `m${i}` } } });
      }
    });
    after(async () => api?.close());

    it('reads no derived attribute it does not use, and no more statements than the whole zaken', async () => {
      const trimmed = await statements({ fields: ['url', 'identificatie', 'processobject'] });
      assert.equal(trimmed.results.length, 20);
      assert.ok(!trimmed.sql.some((sql) => READS_ROLLEN.test(sql)), 'no subselect of the rollen');
      const again = await statements({ fields: ['url', 'identificatie', 'processobject'] });
      const whole = await statements({});
      assert.ok(whole.sql.some((sql) => READS_ROLLEN.test(sql)), 'the whole zaken are read with their rollen');
      const wholeAgain = await statements({});
      assert.equal(again.sql.length, wholeAgain.sql.length, 'both from their stored renderings');
      assert.deepEqual(again.results, wholeAgain.results.map(({ url, identificatie, processobject }: any) => ({ url, identificatie, processobject })));

      const withRollen = await statements({ fields: ['url', 'rollen'] });
      assert.ok(withRollen.results.every((z: any) => z.rollen.length === 1), 'a derived attribute named is read');
    });

    it('answers a zaak changed since its trimmed rendering as it is now', async () => {
      const [first] = (await statements({ fields: ['url', 'omschrijving'] })).results;
      const changed = await api.request(first.url, { method: 'PATCH', json: { omschrijving: 'gewijzigd' } });
      assert.equal(changed.status, 200, changed.text);
      const [now] = (await statements({ fields: ['url', 'omschrijving'] })).results;
      assert.deepEqual(now, { url: first.url, omschrijving: 'gewijzigd' });
    });
  });
}
