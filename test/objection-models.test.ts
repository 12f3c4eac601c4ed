import assert from 'node:assert/strict';
import { MODELS, zaakModels } from '../src/objection/index.js';
import { BACKENDS } from './helpers/backends.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

for (const backend of BACKENDS) {
  describe(`objection models on ${backend.name}`, () => {
    let api: TestServer;
    let zaak: any;
    let schema: Map<string, Set<string>>;

    before(async () => {
      api = await startRegistry(await backend.open());
      const columns = await api.registry.services.storage.knex('information_schema.columns').where('table_schema', api.registry.services.storage.knex.raw('current_schema()')).select('table_name', 'column_name');
      schema = new Map();
      for (const { table_name: table, column_name: column } of columns) schema.set(table, (schema.get(table) ?? new Set()).add(column));
      const post = async (path: string, json: unknown) => {
        const response = await api.request(path, { method: 'POST', json });
        assert.equal(response.status, 201, response.text);
        return response.body;
      };
      const hoofdzaak = await post('/zaken', zaakInput());
      zaak = await post('/zaken', zaakInput({ hoofdzaak: hoofdzaak.url }));
      const rol = await post('/rollen', { zaak: zaak.url, betrokkeneType: 'natuurlijk_persoon', roltype: TYPES.roltypeBehandelaar, roltoelichting: 'behandelt', betrokkeneIdentificatie: { inpBsn: '111222333' } });
      await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z', gezetdoor: rol.url });
      await post('/zaakobjecten', { zaak: zaak.url, objectType: 'adres', objectIdentificatie: { identificatie: 'A1', wplWoonplaatsNaam: 'Utrecht', gorOpenbareRuimteNaam: 'Straat', huisnummer: 1 } });
      await post('/resultaten', { zaak: zaak.url, resultaattype: TYPES.resultaattype });
    });
    after(async () => api?.close());

    for (const [name, model] of Object.entries(MODELS)) {
      it(`${name}: its table and columns are those of the migrated schema, and its relations join existing columns`, () => {
        assert.deepEqual([...model.columns].sort(), [...(schema.get(model.tableName) ?? [])].sort(), `columns of ${model.tableName}`);
        for (const [relation, mapping] of Object.entries(model.relationMappings as unknown as Record<string, { join: { from: string; to: string }; modelClass: typeof model }>)) {
          for (const end of [mapping.join.from, mapping.join.to]) {
            const [table, column] = end.split('.');
            assert.ok(schema.get(table)?.has(column), `${name}.${relation} joins ${end}, which the schema lacks`);
          }
          assert.equal(mapping.join.to.split('.')[0], mapping.modelClass.tableName, `${name}.${relation} joins the related model's table`);
          assert.equal(mapping.join.from.split('.')[0], model.tableName, `${name}.${relation} starts at its own table`);
        }
      });
    }

    it('loads a zaak with its records through the relations, properties in camelCase', async () => {
      const { Zaak } = zaakModels(api.registry.services.storage);
      const uuid = zaak.url.split('/').at(-1);
      const loaded = await Zaak.query().findOne({ uuid }).withGraphFetched('[hoofdzaak.deelzaken, rollen, statussen.[gezetdoor, zaak], resultaat, zaakobjecten, audittrail]');
      assert.ok(loaded);
      assert.equal(loaded.identificatie, zaak.identificatie);
      assert.equal(loaded.verantwoordelijkeOrganisatie, zaak.verantwoordelijkeOrganisatie);
      assert.equal(loaded.hoofdzaak?.deelzaken?.[0].uuid, uuid);
      assert.deepEqual(loaded.rollen?.map((rol) => rol.betrokkeneIdentificatie), [{ inpBsn: '111222333' }]);
      assert.equal(loaded.statussen?.[0].statustype, TYPES.statustypeStart);
      assert.equal(loaded.statussen?.[0].gezetdoor?.roltoelichting, 'behandelt');
      assert.equal(loaded.statussen?.[0].zaak?.uuid, uuid);
      assert.equal(loaded.resultaat?.resultaattype, TYPES.resultaattype);
      assert.equal(loaded.zaakobjecten?.[0].objectType, 'adres');
      assert.deepEqual(loaded.audittrail?.map((entry) => entry.resource).sort(), ['resultaat', 'rol', 'status', 'zaak', 'zaakobject']);
      const byWhere = await Zaak.query().where('verantwoordelijke_organisatie', zaak.verantwoordelijkeOrganisatie).whereNotNull('hoofdzaak_id');
      assert.deepEqual(byWhere.map((z) => z.uuid), [uuid]);
    });

    it('refuses writes, pointing at services.zaken; nothing changes', async () => {
      const { Zaak, Status } = zaakModels(api.registry.services.storage);
      const uuid = zaak.url.split('/').at(-1);
      await assert.rejects(Zaak.query().insert({ uuid: '99999999-9999-4999-8999-999999999999' }).execute(), /read-only: write through registry\.services\.zaken/);
      await assert.rejects(Zaak.query().patch({ omschrijving: 'anders' }).where({ uuid }).execute(), /read-only/);
      await assert.rejects(Status.query().delete().execute(), /read-only/);
      const found = await Zaak.query().findOne({ uuid }).withGraphFetched('statussen');
      assert.equal(found?.omschrijving, zaak.omschrijving);
      assert.equal(found?.statussen?.length, 1);
    });
  });
}
