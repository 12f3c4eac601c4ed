import assert from 'node:assert/strict';
import { ZAAK_COLUMNS } from '../src/resources/zaak/columns.js';
import { testApps } from './helpers/apps.js';
import { BACKENDS } from './helpers/backends.js';
import { TYPES, startRegistry, zaakInput, type TestServer } from './helpers/registry.js';

/**
 * A migration that adds columns while the registry runs (a rolling deploy: the new version migrates,
 * the old one still serves). PostgreSQL refuses a prepared statement whose `*` would now give another
 * set of columns; the registry's statements are prepared once per connection, so every one of them
 * must keep working on the connection that prepared it, not only after a restart.
 */
for (const backend of BACKENDS) {
  describe(`a migration that adds columns while serving, on ${backend.name}`, () => {
    let api: TestServer;
    const apps = testApps();
    const call = async (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
      api.request(path, { method, json, headers: { ...(await apps.headers('alles')), ...headers } });
    const expect = async (status: number, method: string, path: string, json?: unknown, headers?: Record<string, string>) => {
      const response = await call(method, path, json, headers);
      assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
      return response;
    };
    const widen = (...tables: string[]) => Promise.all(tables.map((table) => api.registry.services.storage.knex.raw(`alter table ?? add column vendor_note text`, [table])));

    beforeEach(async () => {
      // One connection: the statements a request prepares are those the next one finds stale.
      api = await startRegistry(await backend.open({ connections: 1 }), { preset: 'standard', authorization: apps.authorization });
    });
    afterEach(async () => api?.close());

    it('keeps answering reads, 304s, lists and the writes whose transaction the statement starts', async () => {
      const requests = async (zaak: { url: string; uuid: string }, minute: number) => {
        const read = await expect(200, 'GET', `/zaken/${zaak.uuid}`);
        await expect(304, 'GET', `/zaken/${zaak.uuid}`, undefined, { 'if-none-match': read.headers.get('etag')! });
        const status = await expect(201, 'POST', '/statussen', { zaak: zaak.url, statustype: TYPES.statustypeStart, datumStatusGezet: `2030-01-02T10:${minute}:00Z` });
        await expect(200, 'GET', `/statussen/${status.body.uuid}`);
        await expect(200, 'PATCH', `/zaken/${zaak.uuid}`, { omschrijving: `minute ${minute}` });
        const list = await expect(200, 'GET', '/zaken');
        assert.ok(list.body.results.some((z: { url: string }) => z.url === zaak.url));
        // A deelzaak: its insert comes after the hoofdzaak's lock in the transaction.
        await expect(201, 'POST', '/zaken', zaakInput({ hoofdzaak: zaak.url }));
        return (await expect(201, 'POST', '/zaken', zaakInput())).body;
      };
      const zaak = (await expect(201, 'POST', '/zaken', zaakInput())).body;
      const next = await requests(zaak, 10);
      const before = (await expect(200, 'GET', `/zaken/${next.uuid}`)).body;
      await widen('zaak', 'status', 'zaak_revision');
      assert.deepEqual((await expect(200, 'GET', `/zaken/${next.uuid}`)).body, before);
      await requests(next, 11);
      await requests(zaak, 12);
    });

    it('names every core column of the zaak table in its statements: adding one leaves them as they are', async () => {
      const columns = await api.registry.services.storage
        .knex('information_schema.columns')
        .where({ table_name: 'zaak' })
        .whereRaw('table_schema = current_schema()')
        .pluck('column_name');
      const core: readonly string[] = ZAAK_COLUMNS;
      assert.deepEqual(core.filter((column) => !columns.includes(column)), []);
      // Beyond them only the geo-crs plugin's own columns, which it reads itself.
      assert.deepEqual(columns.filter((column) => !core.includes(column)).sort(), ['zaakgeometrie_bbox', 'zaakgeometrie_rd']);
    });

    it('answers a write whose transaction had run other statements first 409 once, then writes it', async () => {
      const zaak = (await expect(201, 'POST', '/zaken', zaakInput())).body;
      const object = (await expect(201, 'POST', '/zaakobjecten', { zaak: zaak.url, objectType: 'pand', object: 'http://bag.test/panden/1', relatieomschrijving: 'eerste' })).body;
      await expect(200, 'PATCH', `/zaakobjecten/${object.uuid}`, { relatieomschrijving: 'tweede' });
      await widen('zaakobject');
      // Its transaction locked the zaak (one statement) before the zaakobject's stale read: it cannot start over.
      const stale = await call('PATCH', `/zaakobjecten/${object.uuid}`, { relatieomschrijving: 'derde' });
      assert.equal(stale.status, 409, stale.text);
      assert.equal(stale.body.code, 'conflict');
      assert.equal(stale.headers.get('content-type'), 'application/problem+json');
      assert.equal((await expect(200, 'GET', `/zaakobjecten/${object.uuid}`)).body.relatieomschrijving, 'tweede', 'nothing of it was written');
      await expect(200, 'PATCH', `/zaakobjecten/${object.uuid}`, { relatieomschrijving: 'derde' });
      assert.equal((await expect(200, 'GET', `/zaakobjecten/${object.uuid}`)).body.relatieomschrijving, 'derde');
    });
  });
}
