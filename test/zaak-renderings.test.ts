import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { testApps } from './helpers/apps.js';
import { BACKENDS } from './helpers/backends.js';
import { requestGate } from './helpers/gate.js';
import { statementsDuring } from './helpers/statements.js';
import { TYPES, ZAAKTYPE_GEHEIM, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';
import { findZaakKey } from '../src/resources/zaak/key-reads.js';

/**
 * Zaken are rendered once per revision and base URL and reused by pages and detail reads: whatever
 * changes the zaak shows at once, and nothing a request varies (host, expand, CRS, client) reaches
 * another request.
 */
for (const backend of BACKENDS) {
  describe(`stored renderings of zaken on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    const gate = requestGate('authorize', 'beperkt');
    const as = async (client: 'alles' | 'beperkt', path: string, init: RequestInit & { json?: unknown } = {}) =>
      api.request(path, { ...init, headers: { ...(init.headers as object), ...(await apps.headers(client)) } });
    const get = (path: string, headers: Record<string, string> = {}) => as('alles', path, { headers });
    const post = async (path: string, json: unknown) => {
      const response = await as('alles', path, { method: 'POST', json });
      assert.equal(response.status, 201, response.text);
      return response.body;
    };
    const inPage = async (uuid: string, query = '') => {
      const page = await get(`/zaken?startdatum=2031-05-05${query}`);
      assert.equal(page.status, 200, page.text);
      return page.body.results.find((z: any) => z.uuid === uuid);
    };
    /** The statements about zaken sent while `work` runs (not the outbox dispatcher's polls in between). */
    const queriesDuring = (work: () => Promise<unknown>) => statementsDuring(api.registry.services.storage.knex, work, (sql) => !/outbox/.test(sql) && /"zaak"/.test(sql));

    before(async () => {
      api = await startRegistry(await backend.open(), { preset: 'standard', authorization: apps.authorization, plugins: [gate] });
    });
    after(async () => api?.close());

    it('shows every change of the zaak and its records in pages and detail reads at once', async () => {
      const zaak = await post('/zaken', zaakInput({ startdatum: '2031-05-05' }));
      const cold = await get('/zaken?startdatum=2031-05-05');
      const warm = await get('/zaken?startdatum=2031-05-05');
      assert.equal(warm.text, cold.text, 'the stored text is byte for byte the rendering');
      assert.equal((await inPage(zaak.uuid)).status, null);

      const status = await post('/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: '2031-05-05T10:00:00Z' });
      assert.equal((await inPage(zaak.uuid)).status, status.url);
      assert.equal((await get(`/zaken/${zaak.uuid}`)).body.status, status.url);

      const patched = await as('alles', `/zaken/${zaak.uuid}`, { method: 'PATCH', json: { omschrijving: 'gewijzigd' } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((await inPage(zaak.uuid)).omschrijving, 'gewijzigd');
      assert.equal((await get(`/zaken/${zaak.uuid}`)).body.omschrijving, 'gewijzigd');

      const deelzaak = await post('/zaken', zaakInput({ startdatum: '2031-05-06', hoofdzaak: zaak.url }));
      assert.deepEqual((await inPage(zaak.uuid)).deelzaken, [deelzaak.url]);
      assert.equal((await as('alles', `/zaken/${deelzaak.uuid}`, { method: 'DELETE' })).status, 204);
      assert.deepEqual((await get(`/zaken/${zaak.uuid}`)).body.deelzaken, []);
      assert.deepEqual((await inPage(zaak.uuid)).deelzaken, []);
    });

    it('keeps what a request varies out of the stored rendering: expand, CRS, host', async () => {
      const zaak = await post('/zaken', zaakInput({ startdatum: '2031-05-05', zaakgeometrie: { type: 'Point', coordinates: [5.387, 52.156] } }));
      await get('/zaken?startdatum=2031-05-05');
      const expanded = await inPage(zaak.uuid, '&expand=zaaktype');
      assert.ok(expanded._expand?.zaaktype, 'expanded on request');
      assert.equal((await inPage(zaak.uuid))._expand, undefined, 'and only on that request');
      assert.equal((await get(`/zaken/${zaak.uuid}?expand=zaaktype`)).body._expand.zaaktype.url, zaak.zaaktype);
      assert.equal((await get(`/zaken/${zaak.uuid}`)).body._expand, undefined);

      const rd = await get(`/zaken/${zaak.uuid}`, { 'accept-crs': 'EPSG:28992' });
      assert.equal(rd.headers.get('content-crs'), 'EPSG:28992');
      assert.ok((rd.body.zaakgeometrie.coordinates[0] as number) > 1000, 'RD metres');
      assert.deepEqual((await get(`/zaken/${zaak.uuid}`)).body.zaakgeometrie.coordinates, [5.387, 52.156]);
      const rdPage = await as('alles', '/zaken?startdatum=2031-05-05', { headers: { 'accept-crs': 'EPSG:28992' } });
      assert.ok(rdPage.body.results.find((z: any) => z.uuid === zaak.uuid).zaakgeometrie.coordinates[0] > 1000);
      assert.deepEqual((await inPage(zaak.uuid)).zaakgeometrie.coordinates, [5.387, 52.156]);

      // The same zaak for another host: its URLs are that host's, and this host's stay its own.
      const port = new URL(api.base).port;
      const auth = await apps.headers('alles');
      const other = await new Promise<any>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/zaken/api/v1/zaken?startdatum=2031-05-05', headers: { ...auth, host: 'zaken.example.nl' } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve(JSON.parse(text)));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(other.results.find((z: any) => z.uuid === zaak.uuid).url, `http://zaken.example.nl/zaken/api/v1/zaken/${zaak.uuid}`);
      assert.equal((await inPage(zaak.uuid)).url, zaak.url);
    });

    it('serves a client only the zaken it may see, whoever read them before', async () => {
      const open = await post('/zaken', zaakInput({ startdatum: '2031-05-07' }));
      const secret = await post('/zaken', zaakInput({ startdatum: '2031-05-07', zaaktype: ZAAKTYPE_GEHEIM }));
      const all = await get('/zaken?startdatum=2031-05-07');
      assert.deepEqual(all.body.results.map((z: any) => z.uuid).sort(), [open.uuid, secret.uuid].sort());
      assert.equal((await get(`/zaken/${secret.uuid}`)).status, 200);

      const limited = await as('beperkt', '/zaken?startdatum=2031-05-07');
      assert.deepEqual(limited.body.results.map((z: any) => z.uuid), [open.uuid]);
      assert.equal(limited.body.count, 1);
      assert.equal((await as('beperkt', `/zaken/${secret.uuid}`)).status, 403);
      // Zaken nobody read yet: the limited client's page reads and renders them under its own authorization.
      const cold = await post('/zaken', zaakInput({ startdatum: '2031-05-10' }));
      await post('/zaken', zaakInput({ startdatum: '2031-05-10', zaaktype: ZAAKTYPE_GEHEIM }));
      const first = await as('beperkt', '/zaken?startdatum=2031-05-10');
      assert.deepEqual(first.body.results.map((z: any) => z.uuid), [cold.uuid]);
      assert.deepEqual(first.body.results[0], (await get(`/zaken/${cold.uuid}`)).body);
    });

    it('sends the revision it authorized: a zaak made secret while its read waits is not sent at its new state', async () => {
      const zaak = await post('/zaken', zaakInput({ startdatum: '2031-05-09' }));
      assert.equal((await as('beperkt', `/zaken/${zaak.uuid}`)).status, 200);
      const { reached, release } = gate.hold();
      const pending = as('beperkt', `/zaken/${zaak.uuid}`);
      await reached;
      const raised = await as('alles', `/zaken/${zaak.uuid}`, { method: 'PATCH', json: { vertrouwelijkheidaanduiding: 'geheim', toelichting: 'geheime toelichting' } });
      assert.equal(raised.status, 200, raised.text);
      // The new revision's rendering replaces the one the waiting read found current.
      assert.equal((await get(`/zaken/${zaak.uuid}`)).body.vertrouwelijkheidaanduiding, 'geheim');
      release();
      const answer = await pending;
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.vertrouwelijkheidaanduiding, zaak.vertrouwelijkheidaanduiding);
      assert.notEqual(answer.body.toelichting, 'geheime toelichting');
      assert.equal((await as('beperkt', `/zaken/${zaak.uuid}`)).status, 403);
    });

    it('answers a matching If-None-Match from one narrow statement: no relations, no rendering', async () => {
      const zaak = await post('/zaken', zaakInput({ startdatum: '2031-05-08' }));
      let first: Awaited<ReturnType<typeof get>> | undefined;
      const cold = await queriesDuring(async () => (first = await get(`/zaken/${zaak.uuid}`)));
      assert.equal(cold.length, 1, `a zaak not rendered yet is read with its relations at once: ${cold.join('\n')}`);
      const etag = first!.headers.get('etag')!;
      let response: Awaited<ReturnType<typeof get>> | undefined;
      const sql = await queriesDuring(async () => (response = await get(`/zaken/${zaak.uuid}`, { 'if-none-match': etag })));
      assert.equal(response!.status, 304);
      assert.equal(sql.length, 1, sql.join('\n'));
      assert.doesNotMatch(sql[0], /rel_status/);
      // A repeated 200 is one narrow statement too, and uses the stored rendering.
      const again = await queriesDuring(() => get(`/zaken/${zaak.uuid}`));
      assert.equal(again.length, 1, again.join('\n'));
      assert.doesNotMatch(again[0], /rel_status/);
      // Changed since: the narrow statement finds the rendering stale, and the zaak is read again with its relations.
      assert.equal((await as('alles', `/zaken/${zaak.uuid}`, { method: 'PATCH', json: { omschrijving: 'anders' } })).status, 200);
      let changed: Awaited<ReturnType<typeof get>> | undefined;
      const stale = await queriesDuring(async () => (changed = await get(`/zaken/${zaak.uuid}`)));
      assert.equal(changed!.body.omschrijving, 'anders');
      assert.deepEqual(stale.map((statement) => /rel_status/.test(statement)), [false, true], stale.join('\n'));
    });

    it('reads the keys of zaken read in one turn of the event loop with one statement, each read its own', async () => {
      const [a, b] = [await post('/zaken', zaakInput()), await post('/zaken', zaakInput())];
      const knex = api.registry.services.storage.knex;
      const missing = '0b0b0b0b-0000-4000-8000-000000000000';
      let keys: Awaited<ReturnType<typeof findZaakKey>>[] = [];
      const together = await queriesDuring(async () => (keys = await Promise.all([a, b, a, { uuid: missing }].map((z) => findZaakKey(knex, z.uuid)))));
      assert.equal(together.length, 1, together.join('\n'));
      assert.match(together[0], /any\(/);
      assert.deepEqual(keys.map((key) => key?.uuid), [a.uuid, b.uuid, a.uuid, undefined]);
      assert.notEqual(keys[0]!.id, keys[1]!.id);
      // A uuid in capitals names the same zaak.
      assert.equal((await findZaakKey(knex, a.uuid.toUpperCase()))?.id, keys[0]!.id);
      // Reads of later turns get statements of their own, and see what was committed in between.
      const before = keys[0]!.revision;
      assert.equal((await as('alles', `/zaken/${a.uuid}`, { method: 'PATCH', json: { omschrijving: 'later' } })).status, 200);
      const alone = await queriesDuring(async () => (keys = [await findZaakKey(knex, a.uuid)]));
      assert.equal(alone.length, 1);
      assert.doesNotMatch(alone[0], /any\(/);
      assert.notEqual(keys[0]!.revision, before);
    });

    it('answers concurrent reads of zaken it rendered each with its own zaak, from key reads alone', async () => {
      const zaken = await Promise.all(Array.from({ length: 12 }, (_, i) => post('/zaken', zaakInput({ omschrijving: `samen ${i}` }))));
      // Rendered once, so that the reads below take the key reads' way.
      for (const zaak of zaken) assert.equal((await get(`/zaken/${zaak.uuid}`)).status, 200);
      let reads: Awaited<ReturnType<typeof get>>[] = [];
      const sql = await queriesDuring(async () => (reads = await Promise.all([...zaken, ...zaken].map((zaak) => get(`/zaken/${zaak.uuid}`)))));
      for (const [i, read] of reads.entries()) {
        assert.equal(read.status, 200, read.text);
        assert.equal(read.body.omschrijving, `samen ${i % 12}`);
        assert.equal(read.body.uuid, zaken[i % 12].uuid);
      }
      assert.ok(sql.length >= 1 && sql.length <= reads.length, sql.join('\n'));
      for (const statement of sql) assert.doesNotMatch(statement, /rel_status/, 'key reads only: every zaak was rendered');
      const missing = await get('/zaken/0b0b0b0b-0000-4000-8000-000000000001');
      assert.equal(missing.status, 404);
    });

    it('reads a zaak a page rendered from one narrow statement, and finds a page of them without looking up uuids', async () => {
      const zaak = await post('/zaken', zaakInput({ startdatum: '2031-05-09' }));
      const listed = await queriesDuring(() => get('/zaken?startdatum=2031-05-09'));
      assert.equal(listed.length, 2, `the page's keys, then its zaken rendered: ${listed.join('\n')}`);
      assert.doesNotMatch(listed[0], /uuid/, 'a page is found by ids and revisions alone');
      // The page's rendering is found by the zaak's uuid: the read loads the revision alone.
      let response: Awaited<ReturnType<typeof get>> | undefined;
      const read = await queriesDuring(async () => (response = await get(`/zaken/${zaak.uuid}`)));
      assert.equal(response!.status, 200, response!.text);
      assert.equal(response!.body.url, zaak.url);
      assert.equal(read.length, 1, read.join('\n'));
      assert.doesNotMatch(read[0], /rel_status/);
    });
  });
}
