import assert from 'node:assert/strict';
import type { LineSource } from '../src/index.js';
import { BACKENDS } from './helpers/backends.js';
import { startRegistry, zaakInput, TYPES, type TestServer } from './helpers/registry.js';
import { seededUuid, zaakBundles } from './helpers/zaak-bundles.js';

const linesOf = (lines: string[]): LineSource => async function* () {
  yield* lines;
};

async function exported(server: TestServer): Promise<string[]> {
  const lines: string[] = [];
  for await (const bundle of server.registry.services.migration.export({ baseUrl: server.base })) lines.push(JSON.stringify(bundle));
  return lines;
}

for (const backend of BACKENDS) {
  describe(`migration: export, import and verification (${backend.name})`, function () {
    this.timeout(600_000);
    let a: TestServer;
    let b: TestServer;
    let source: string[];
    let made: string[];
    let importJob: string;
    /** The jobs that imported into B: each left one provenance row per zaak it wrote. */
    const intoB: string[] = [];

    before(async () => {
      a = await startRegistry(await backend.open());
      b = await startRegistry(await backend.open());
      // Registry A: zaken made through its API (each kind of record, closed and reopened), and many more taken over from elsewhere.
      made = [];
      for (let i = 0; i < 6; i++) {
        const zaak = (await a.request('/zaken', { method: 'POST', json: zaakInput({ omschrijving: `via de API ${i}`, zaakgeometrie: { type: 'Point', coordinates: [5.1, 52.1] }, hoofdzaak: i === 5 ? made[0] : undefined }) })).body;
        made.push(zaak.url);
        const rol = (await a.request('/rollen', { method: 'POST', json: { zaak: zaak.url, betrokkeneType: 'natuurlijk_persoon', roltype: TYPES.roltypeInitiator, roltoelichting: 'x', betrokkeneIdentificatie: { inpBsn: '111222333' } } })).body;
        await a.request('/statussen', { method: 'POST', json: { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2024-03-01T10:00:00Z', gezetdoor: rol.url } });
        await a.request('/zaakobjecten', { method: 'POST', json: { zaak: zaak.url, objectType: 'adres', object: 'https://bag.example.nl/a/1' } });
        await a.request('/klantcontacten', { method: 'POST', json: { zaak: zaak.url, datumtijd: '2024-03-01T11:00:00Z', kanaal: 'mail' } });
        if (i % 2) {
          await a.request('/resultaten', { method: 'POST', json: { zaak: zaak.url, resultaattype: TYPES.resultaattype } });
          await a.request('/statussen', { method: 'POST', json: { zaak: zaak.url, statustype: TYPES.statustypeEind, datumStatusGezet: '2024-03-02T10:00:00Z' } });
        }
      }
      const taken = [...zaakBundles(994, 'https://oud.example.nl/zaken/api/v1')].map((bundle) => JSON.stringify(bundle));
      const intoA = await a.registry.services.migration.import(linesOf(taken), { baseUrl: a.base, rewrite: [{ from: 'https://oud.example.nl/zaken/api/v1', to: a.base }] });
      assert.equal(intoA.counters.imported, 994, JSON.stringify(intoA.counters));
      source = await exported(a);
    });
    after(async () => {
      await a?.close();
      await b?.close();
    });

    it('takes 1,000 zaken from A into B with a host rewrite: a clean report, and GETs byte-equal after the reverse rewrite', async () => {
      assert.equal(source.length, 1000);
      const result = await b.registry.services.migration.import(linesOf(source), { baseUrl: b.base, rewrite: [{ from: a.base, to: b.base }] });
      importJob = result.jobId;
      intoB.push(result.jobId);
      assert.equal(result.counters.imported, 1000, JSON.stringify(result.counters));
      const report = await b.registry.services.migration.verify(result.jobId, linesOf(source));
      assert.deepEqual(report.lines.filter((l) => l.differences.length).slice(0, 3), []);
      assert.equal(report.clean, true, JSON.stringify({ counts: report.counts, invariants: report.invariants, sequence: report.sequence }));
      assert.equal(report.counts.zaak.stored, 1000);
      assert.ok(report.counts.status.stored >= 2900 && report.counts.audittrail.stored === report.counts.audittrail.expected);
      const back = (text: string) => text.split(b.base).join(a.base);
      for (const url of [...made, ...source.slice(6, 40).map((line) => String(JSON.parse(line).zaak.url))]) {
        const path = url.slice(a.base.length);
        for (const suffix of ['', '/audittrail']) {
          const [fromA, fromB] = await Promise.all([a.request(path + suffix), b.request(path + suffix)]);
          assert.equal(fromB.status, 200);
          // B's audit trail has one row more: the import's own.
          const shown = suffix ? JSON.stringify(JSON.parse(fromB.text).filter((row: any) => row.toelichting !== `Import ${importJob}`)) : fromB.text;
          assert.equal(back(shown), suffix ? JSON.stringify(JSON.parse(fromA.text)) : fromA.text, `${path}${suffix}`);
        }
        for (const list of ['/statussen', '/rollen', '/zaakobjecten', '/klantcontacten']) {
          const [fromA, fromB] = await Promise.all([a.request(`${list}?zaak=${encodeURIComponent(url)}`), b.request(`${list}?zaak=${encodeURIComponent(url.replace(a.base, b.base))}`)]);
          assert.equal(back(fromB.text), fromA.text, `${list} of ${url}`);
        }
        const etag = (await b.request(path)).headers.get('etag');
        if (etag) assert.equal((await b.request(path, { headers: { 'if-none-match': etag } })).status, 304);
      }
    });

    it('is idempotent: a rerun finds every line unchanged', async () => {
      const rerun = await b.registry.services.migration.import(linesOf(source), { baseUrl: b.base, rewrite: [{ from: a.base, to: b.base }] });
      assert.notEqual(rerun.jobId, importJob);
      assert.deepEqual(rerun.counters, { imported: 0, replaced: 0, unchanged: 1000, conflict: 0, failed: 0, deferred: 0 });
    });

    it('reports a changed line as a conflict, and replaces it with onConflict replace', async () => {
      const changed = [...source];
      const bundle = JSON.parse(changed[10]);
      bundle.zaak.omschrijving = 'gewijzigd in de bron';
      changed[10] = JSON.stringify(bundle);
      const rules = [{ from: a.base, to: b.base }];
      const skipped = await b.registry.services.migration.import(linesOf(changed), { baseUrl: b.base, rewrite: rules });
      assert.equal(skipped.counters.conflict, 1);
      assert.equal(skipped.counters.unchanged, 999);
      const replaced = await b.registry.services.migration.import(linesOf(changed), { baseUrl: b.base, rewrite: rules, onConflict: 'replace' });
      assert.equal(replaced.counters.replaced, 1);
      intoB.push(replaced.jobId);
      const zaak = await b.request(String(bundle.zaak.url).slice(a.base.length));
      assert.equal(zaak.body.omschrijving, 'gewijzigd in de bron');
      assert.equal((await b.registry.services.migration.verify(replaced.jobId, linesOf(changed))).clean, true);
    });

    it('sends no notifications: no outbox rows, and one provenance row per zaak', async () => {
      const { rows } = await b.registry.services.storage.knex.raw('select count(*)::int as n from outbox');
      assert.equal(rows[0].n, 0);
      // A's own provenance rows came along as part of the source audit trails.
      const provenance = await b.registry.services.storage.knex('audittrail').whereIn('toelichting', intoB.map((id) => `Import ${id}`)).groupBy('zaak_id').select('zaak_id', b.registry.services.storage.knex.raw('count(*)::int as n'));
      assert.equal(provenance.length, 1000);
      assert.ok(provenance.every((row: any) => row.n === 1));
    });

    it('imports a closed blijvend_bewaren zaak with no archiefactiedatum as it is, and keeps v1 and v7 uuids bit for bit', async () => {
      const [bundle] = [...zaakBundles(1, b.base, { prefix: 'oz-2429' })] as any[];
      const v1 = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
      const v7 = '018f3e5c-7b2a-7cde-9f01-23456789abcd';
      const retag = (text: string) => text.split(bundle.zaak.uuid).join(v1).split(bundle.rollen[0].uuid).join(v7.toUpperCase());
      const closed = JSON.parse(retag(JSON.stringify(bundle)));
      Object.assign(closed.zaak, { einddatum: '2021-05-01', archiefnominatie: 'blijvend_bewaren', archiefactiedatum: null, identificatie: 'OZ-2429' });
      const result = await b.registry.services.migration.import(linesOf([JSON.stringify(closed)]), { baseUrl: b.base });
      assert.equal(result.counters.imported, 1, JSON.stringify(result.counters));
      const zaak = (await b.request(`/zaken/${v1}`)).body;
      assert.deepEqual([zaak.uuid, zaak.einddatum, zaak.archiefnominatie, zaak.archiefactiedatum], [v1, '2021-05-01', 'blijvend_bewaren', null]);
      assert.equal((await b.request(`/rollen/${v7}`)).body.uuid, v7);
    });

    it('defers a deelzaak that comes before its hoofdzaak and places it at the end', async () => {
      const bundles = [...zaakBundles(10, b.base, { prefix: 'order' })].map((x) => JSON.stringify(x));
      const deel = bundles.pop()!;
      const result = await b.registry.services.migration.import(linesOf([deel, ...bundles]), { baseUrl: b.base });
      assert.equal(result.counters.imported, 10, JSON.stringify(result.counters));
      const zaak = (await b.request(`/zaken/${seededUuid('order-9')}`)).body;
      assert.equal(zaak.hoofdzaak, `${b.base}/zaken/${seededUuid('order-8')}`);
    });

    it('refuses a second job while one is active', async () => {
      // The job reads its input twice (checksum, then import): the second read holds it active a while.
      let reads = 0;
      const slow = async function* () {
        reads++;
        yield* source.slice(0, 3);
        if (reads === 2) await new Promise((resolve) => setTimeout(resolve, 500));
      };
      const first = b.registry.services.migration.import(slow, {});
      while (reads < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      await assert.rejects(b.registry.services.migration.import(linesOf(source.slice(0, 1)), {}), /another import job is active/);
      await first;
    });
  });
}
