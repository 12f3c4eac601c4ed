import assert from 'node:assert/strict';
import { cloudevents, geoCrs, notifications, type LineSource } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { startRegistry, type TestServer } from './helpers/registry.js';
import { seededUuid, zaakBundles } from './helpers/zaak-bundles.js';

const linesOf = (lines: string[]): LineSource => async function* () {
  yield* lines;
};

for (const backend of BACKENDS) {
  describe(`migration: what an import leaves besides its zaken (${backend.name})`, function () {
    this.timeout(120_000);
    let api: TestServer;
    const bundles = (prefix: string, n: number, base = api.base) => [...zaakBundles(n, base, { prefix })].map((bundle) => JSON.stringify(bundle));

    before(async () => {
      // geo-crs keeps a bbox column beside each zaak; notifications and cloudevents (both families) would enqueue a delivery per change.
      api = await startRegistry(await backend.open(), {
        plugins: [
          geoCrs(),
          notifications({ url: 'http://127.0.0.1:9/notificaties/api/v1', registerKanaal: false }),
          cloudevents({ source: 'urn:nld:oin:00000001823288444000:systeem:zaakregister', profile: ['mijn-overheid', 'nrc'], sinks: [{ id: 'portaal', url: 'http://127.0.0.1:9/events' }] }),
        ],
      });
    });
    after(() => api?.close());

    it('keeps the bbox search index of imported zaken, and enqueues no notification and no CloudEvent', async () => {
      const result = await api.registry.services.migration.import(linesOf(bundles('bbox', 8)), { baseUrl: api.base });
      assert.equal(result.counters.imported, 8, JSON.stringify(result.counters));
      // Bundles 0 and 4 have a point at 5.000/52.000 and 5.004/52.004.
      const found = await api.request('/zaken?bbox=4.999,51.999,5.001,52.001');
      assert.equal(found.status, 200, found.text);
      assert.deepEqual(found.body.results.map((zaak: any) => zaak.uuid), [seededUuid('bbox-0')]);
      assert.equal(found.body.count, 1);
      const { rows } = await api.registry.services.storage.knex.raw('select count(*)::int as n from outbox');
      assert.equal(rows[0].n, 0);
    });

    it('exports the zaken a GET /zaken filter selects, each with its records and audit trail', async () => {
      const selected = [];
      for await (const bundle of api.registry.services.migration.export({ baseUrl: api.base, filters: { identificatie: 'BBOX-0000003' } })) selected.push(bundle);
      assert.deepEqual(selected.map((bundle) => bundle.zaak.uuid), [seededUuid('bbox-3')]);
      assert.equal((selected[0].statussen as unknown[]).length, 3);
      // The source's five rows and the import's own.
      assert.equal(selected[0].audittrail!.length, 6);
      const all = [];
      for await (const bundle of api.registry.services.migration.export({ baseUrl: api.base, filters: { startdatum__gte: '2019-01-05' }, pageSize: 2 })) all.push(bundle.zaak.identificatie);
      // In the input's order, though the import wrote 8 bundles at once.
      assert.deepEqual(all, ['BBOX-0000004', 'BBOX-0000005', 'BBOX-0000006', 'BBOX-0000007']);
    });

    it('writes nothing on a dry run, and reports what would happen', async () => {
      const result = await api.registry.services.migration.import(linesOf(bundles('droog', 3)), { baseUrl: api.base, dryRun: true });
      assert.equal(result.counters.imported, 3, JSON.stringify(result.counters));
      assert.equal((await api.request(`/zaken/${seededUuid('droog-0')}`)).status, 404);
      assert.equal(Number((await api.registry.services.storage.knex('migration_zaak').where({ zaak_uuid: seededUuid('droog-0') }).count({ n: '*' }))[0].n), 0);
    });

    it('fails a line in strict mode whose zaaktype the catalog does not know, and a line that is no bundle', async () => {
      const [known, unknown] = bundles('streng', 2).map((line) => JSON.parse(line));
      unknown.zaak.zaaktype = 'http://catalogus.test/catalogi/api/v1/zaaktypen/99999999-9999-4999-8999-999999999999';
      const result = await api.registry.services.migration.import(linesOf([JSON.stringify(known), JSON.stringify(unknown), '{"geen": "bundel"}', 'geen json']), { baseUrl: api.base, validation: 'strict' });
      assert.deepEqual([result.counters.imported, result.counters.failed], [1, 3]);
      const messages = (await api.registry.services.storage.knex('migration_item').where({ job_id: result.jobId, status: 'failed' }).orderBy('line').select('message')).map((row: any) => row.message);
      assert.match(messages[0], /zaaktype .* is not in the catalog/);
      assert.match(messages[1], /a bundle is an object with a "zaak"/);
      assert.match(messages[2], /line 4/);
    });

    it('refuses an audit row of another zaak, and a record that belongs to another zaak', async () => {
      const [a, b] = bundles('vreemd', 2).map((line) => JSON.parse(line));
      a.audittrail[0].hoofdObject = b.zaak.url;
      b.statussen[0].zaak = a.zaak.url;
      const result = await api.registry.services.migration.import(linesOf([JSON.stringify(a), JSON.stringify(b)]), { baseUrl: api.base });
      assert.equal(result.counters.failed, 2);
      assert.equal((await api.request(`/zaken/${a.zaak.uuid}`)).status, 404);
    });

    it('writes the other bundles of a batch when the database refuses one: that one fails alone and leaves nothing', async () => {
      const lines = bundles('partij', 6).map((line) => JSON.parse(line));
      // Not a date: refused by the database, not before.
      lines[2].statussen[1].datumStatusGezet = '2020-13-45T10:00:00Z';
      const result = await api.registry.services.migration.import(linesOf(lines.map((bundle) => JSON.stringify(bundle))), { baseUrl: api.base });
      assert.deepEqual([result.counters.imported, result.counters.failed], [5, 1], JSON.stringify(result.counters));
      const knex = api.registry.services.storage.knex;
      const items = await knex('migration_item').where({ job_id: result.jobId }).orderBy('line').select('line', 'status', 'message');
      assert.deepEqual(items.map((item: any) => item.status), ['imported', 'imported', 'failed', 'imported', 'imported', 'imported']);
      assert.match(items[2].message, /refused by the database/);
      for (const [i, bundle] of lines.entries()) assert.equal((await api.request(`/zaken/${bundle.zaak.uuid}`)).status, i === 2 ? 404 : 200, `zaak ${i}`);
      assert.equal((await api.request(`/rollen/${lines[2].rollen[0].uuid}`)).status, 404);
      assert.equal((await knex('audittrail').whereIn('uuid', lines[2].audittrail.map((row: any) => row.uuid))).length, 0);
      assert.equal((await knex('migration_zaak').where({ zaak_uuid: lines[2].zaak.uuid })).length, 0);
      // The statussen of the stored zaken name their rollen, as their lists show them.
      const statussen = (await api.request(`/statussen?zaak=${encodeURIComponent(`${api.base}/zaken/${lines[3].zaak.uuid}`)}`)).body;
      assert.equal(statussen.results.find((status: any) => status.gezetdoor).gezetdoor, `${api.base}/rollen/${lines[3].rollen[0].uuid}`);
    });

    it('reports a record whose uuid another zaak holds as a conflict, on a dry run too, and keeps nothing of its zaak', async () => {
      const [a, b] = bundles('dubbel', 2).map((line) => JSON.parse(line));
      // Nothing reads the statussen' ids back: their insert travels with the COMMIT, and is refused there.
      b.statussen[1].uuid = a.statussen[1].uuid;
      b.statussen[1].url = `${api.base}/statussen/${a.statussen[1].uuid}`;
      const first = await api.registry.services.migration.import(linesOf([JSON.stringify(a)]), { baseUrl: api.base });
      assert.equal(first.counters.imported, 1, JSON.stringify(first.counters));
      const tried = await api.registry.services.migration.import(linesOf([JSON.stringify(b)]), { baseUrl: api.base, dryRun: true });
      assert.equal(tried.counters.conflict, 1, JSON.stringify(tried.counters));
      const result = await api.registry.services.migration.import(linesOf([JSON.stringify(b)]), { baseUrl: api.base });
      assert.equal(result.counters.conflict, 1, JSON.stringify(result.counters));
      const knex = api.registry.services.storage.knex;
      const [item] = await knex('migration_item').where({ job_id: result.jobId });
      assert.equal(item.status, 'conflict');
      assert.match(item.message, /already in this registry/);
      assert.equal((await api.request(`/zaken/${b.zaak.uuid}`)).status, 404);
      assert.equal((await knex('migration_zaak').where({ zaak_uuid: b.zaak.uuid })).length, 0);
    });
  });
}
